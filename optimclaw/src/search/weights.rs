//! The weights of BM25F's fields, which a registry's builder may change.

/// Field weights of BM25F. Names say the most about a tool; parameter
/// descriptions the least. Change them with
/// [`RegistryBuilder::search_weights`](crate::RegistryBuilder::search_weights)
/// when your catalog's names say little (generated names, ids), and check
/// the change with `bash bench/retrieval.sh` on your own queries.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Weights {
    /// Parts of the tool name (`job_create` → `job`, `create`).
    pub name: f32,
    /// `keywords` of the tool.
    pub keywords: f32,
    /// The tool description.
    pub description: f32,
    /// Parameter names.
    pub param_names: f32,
    /// Parameter descriptions.
    pub param_descriptions: f32,
    /// String values of the tool's example calls (low weight: they often
    /// hold the words users type, but also incidental ones).
    pub examples: f32,
    /// The tool's example user requests (`asks`): users' own words, like
    /// the description's weight.
    pub asks: f32,
}

impl Weights {
    /// Sets [`asks`](Self::asks).
    #[must_use]
    pub fn with_asks(mut self, asks: f32) -> Self {
        self.asks = asks;
        self
    }
}

impl Weights {
    /// Sets [`name`](Self::name).
    #[must_use]
    pub fn with_name(mut self, name: f32) -> Self {
        self.name = name;
        self
    }

    /// Sets [`keywords`](Self::keywords).
    #[must_use]
    pub fn with_keywords(mut self, keywords: f32) -> Self {
        self.keywords = keywords;
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub fn with_description(mut self, description: f32) -> Self {
        self.description = description;
        self
    }

    /// Sets [`param_names`](Self::param_names).
    #[must_use]
    pub fn with_param_names(mut self, param_names: f32) -> Self {
        self.param_names = param_names;
        self
    }

    /// Sets [`param_descriptions`](Self::param_descriptions).
    #[must_use]
    pub fn with_param_descriptions(mut self, param_descriptions: f32) -> Self {
        self.param_descriptions = param_descriptions;
        self
    }

    /// Sets [`examples`](Self::examples).
    #[must_use]
    pub fn with_examples(mut self, examples: f32) -> Self {
        self.examples = examples;
        self
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            name: 3.0,
            keywords: 2.0,
            description: 1.0,
            param_names: 0.6,
            param_descriptions: 0.8,
            examples: 0.3,
            asks: 1.0,
        }
    }
}
