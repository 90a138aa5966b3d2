//! A conversation's view of the registry: which deferred tools it has
//! loaded, and what each of its requests sends.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use crate::bridge::unpack_bridge_call;
use crate::call::CallOptions;
use crate::config::{LazyConfig, LoadStrategy};
use crate::context::ToolContext;
use crate::error::{ToolError, ToolErrorKind};
use crate::prompt::{Prompt, canonical_spec};
use crate::registry::Registry;
use crate::scope::ToolScope;
use crate::tool::{CALL_TOOL, TOOL_INFO, Tool};

/// One conversation with a model.
///
/// Remembers which deferred tools `tool_info` returned (and which deferred
/// tools the model called directly); every later [`prompt`](Self::prompt)
/// carries their schemas, so discovery is paid at most once per tool per
/// session. Cloning shares the session; sessions never share state with
/// each other, and all methods are safe to call from many tasks at once.
///
/// ```
/// # use optimclaw::{LazyConfig, Registry, Session};
/// let registry = Registry::builder().lazy(LazyConfig::lazy()).build().unwrap();
/// let session = Session::new(registry);
/// assert!(session.prompt().tool_names().contains(&"tool_info"));
/// ```
///
/// A session may be narrowed to a [`ToolScope`] ([`scoped`](Self::scoped)):
/// its prompt, its `tool_info` answers and its calls then know only the
/// tools in scope.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
    scope: Arc<ToolScope>,
}

struct Inner {
    registry: Registry,
    lazy: LazyConfig,
    /// Deferred tools loaded, in load order.
    loaded: Mutex<Vec<String>>,
    /// Deferred tools attached to a message ([`Session::preload`]).
    attached: Mutex<Vec<String>>,
    /// Tools whose schema went back with a failed call.
    schema_shown: Mutex<Vec<String>>,
    /// The latest message preload read (its first [`REQUEST_CHARS`]
    /// characters), and the tools it attached to it.
    request: Mutex<(String, Vec<String>)>,
}

/// Characters of a message kept to tell its text in a call's arguments.
const REQUEST_CHARS: usize = 4096;

impl Session {
    /// A session with the registry's lazy-loading setting.
    pub fn new(registry: Registry) -> Self {
        let lazy = registry.lazy_config().clone();
        Self::with_lazy(registry, lazy)
    }

    /// A session with its own lazy-loading setting.
    pub fn with_lazy(registry: Registry, lazy: LazyConfig) -> Self {
        Session {
            inner: Arc::new(Inner {
                registry,
                lazy,
                loaded: Mutex::new(Vec::new()),
                attached: Mutex::new(Vec::new()),
                schema_shown: Mutex::new(Vec::new()),
                request: Mutex::new((String::new(), Vec::new())),
            }),
            scope: Arc::new(ToolScope::all()),
        }
    }

    /// The same conversation (sharing what it loaded) seen through
    /// `scope`: the prompt lists and names only tools in scope, `tool_info`
    /// finds only them, and a call of any other tool is answered as an
    /// unknown tool. For access control (the MCP server gives each access
    /// key's scope to its requests) or to hand a sub-agent part of a
    /// catalog.
    ///
    /// ```
    /// # use optimclaw::{LazyConfig, Registry, Session, ToolScope};
    /// let registry = Registry::builder().lazy(LazyConfig::lazy()).build().unwrap();
    /// let session = Session::new(registry).scoped(ToolScope::new(["tool_info"]).unwrap());
    /// // The bridge (the default strategy) calls only tools in scope.
    /// assert_eq!(session.prompt().tool_names(), ["call_tool", "tool_info"]);
    /// ```
    #[must_use]
    pub fn scoped(&self, scope: ToolScope) -> Session {
        Session {
            inner: Arc::clone(&self.inner),
            scope: Arc::new(scope),
        }
    }

    /// The tools this session may see and call.
    pub fn scope(&self) -> &ToolScope {
        &self.scope
    }

    /// The registry behind the session.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The session's lazy-loading setting.
    pub fn lazy_config(&self) -> &LazyConfig {
        &self.inner.lazy
    }

    fn loaded_guard(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        // A panic elsewhere cannot leave the list half-written: every
        // update is a single push or retain.
        self.inner
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The deferred tools attached to messages so far
    /// ([`preload`](Self::preload)), in attachment order.
    pub fn attached(&self) -> Vec<String> {
        self.inner
            .attached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The tools attached to messages ([`preload`](Self::preload)), latest
    /// first, whose required parameters are all among `args`' fields: what
    /// a call of a made-up name most likely meant (a small model names its
    /// call after its argument, `drafts({"path": "drafts"})`, with
    /// `make_dir`'s schema attached). At most three.
    fn attached_fitting<'r>(&self, args: &Value, registry: &'r Registry) -> Vec<&'r str> {
        let Some(fields) = args.as_object().filter(|m| !m.is_empty()) else {
            return Vec::new();
        };
        self.attached()
            .iter()
            .rev()
            .filter_map(|name| registry.get(name))
            .filter(|tool| self.scope.allows(tool.name()))
            .filter(|tool| {
                let schema = tool.input_schema();
                let mut required = crate::schema::required(schema).peekable();
                required.peek().is_some() && required.all(|r| fields.contains_key(r))
            })
            .map(|tool| tool.name())
            .take(3)
            .collect()
    }

    /// Records the message preload reads; [`attach`](Self::attach) then
    /// records the tools attached to it.
    pub(crate) fn set_request(&self, message: &str) {
        let end = message
            .char_indices()
            .nth(REQUEST_CHARS)
            .map_or(message.len(), |(i, _)| i);
        *self
            .inner
            .request
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = (message[..end].to_owned(), Vec::new());
    }

    /// A field `tool` (a core tool) does not take, with the deferred tool
    /// the model most likely meant instead: one attached or loaded in this
    /// session that requires that field (`time` sent the `datetime` of an
    /// attached `timezone_convert`), or else one attached to the latest
    /// message when the field holds that message's own text (`time` sent
    /// `{"text": "2025-05-05T06:30:00Z"}` for "What is
    /// 2025-05-05T06:30:00Z in Europe/Berlin?"). Dropped as noise, such a
    /// field would have the core tool answer another question.
    fn field_of_another<'r>(
        &self,
        tool: &Tool,
        args: &Value,
        registry: &'r Registry,
    ) -> Option<(String, &'r Tool)> {
        let fields = args.as_object()?;
        let props = tool
            .input_schema()
            .get("properties")
            .and_then(Value::as_object);
        let unknown: Vec<&String> = fields
            .keys()
            .filter(|k| props.is_none_or(|p| !p.contains_key(*k)))
            .collect();
        if unknown.is_empty() {
            return None;
        }
        let candidate = |name: &String| {
            registry
                .get(name)
                .filter(|other| !other.is_core() && self.scope.allows(other.name()))
        };
        let mut names = self.attached();
        names.extend(self.loaded());
        let by_name = names.iter().rev().filter_map(candidate).find_map(|other| {
            unknown
                .iter()
                .find(|field| crate::schema::is_required(other.input_schema(), field))
                .map(|field| ((*field).clone(), other))
        });
        if by_name.is_some() {
            return by_name;
        }
        let request = self
            .inner
            .request
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (message, attached) = &*request;
        let quoted = unknown.iter().find(|field| {
            fields[field.as_str()]
                .as_str()
                .map(str::trim)
                .is_some_and(|text| text.chars().count() >= 4 && message.contains(text))
        })?;
        attached
            .iter()
            .filter_map(candidate)
            .next()
            .map(|other| ((*quoted).clone(), other))
    }

    /// Forgets that tools were attached (the message that carried them
    /// is no longer sent), so they may be attached again.
    pub fn detach(&self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        self.inner
            .attached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|a| !names.contains(a));
    }

    /// Forgets that tools were loaded (the turns that showed their schemas
    /// are no longer sent).
    pub fn unload(&self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        self.loaded_guard().retain(|n| !names.contains(n));
        self.inner
            .schema_shown
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|n| !names.contains(n));
    }

    /// Records tools as attached to a message: the one [`set_request`](Self::set_request) recorded last.
    pub(crate) fn attach(&self, names: &[String]) {
        let mut attached = self
            .inner
            .attached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for name in names {
            if !attached.contains(name) {
                attached.push(name.clone());
            }
        }
        self.inner
            .request
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .extend_from_slice(names);
    }

    /// The deferred tools loaded so far, in load order.
    pub fn loaded(&self) -> Vec<String> {
        self.loaded_guard().clone()
    }

    /// Whether a deferred tool is loaded (core tools always are).
    pub fn is_loaded(&self, name: &str) -> bool {
        if !self.scope.allows(name) {
            return false;
        }
        match self.inner.registry.get(name) {
            Some(tool) if tool.is_core() => true,
            Some(_) => self.loaded_guard().iter().any(|n| n == name),
            None => false,
        }
    }

    /// Marks deferred tools loaded; returns the names newly loaded.
    pub fn load<I, S>(&self, names: I) -> Vec<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut loaded = self.loaded_guard();
        let mut added = Vec::new();
        for name in names {
            let name = name.as_ref();
            if let Some(tool) = self.inner.registry.get(name)
                && !tool.is_core()
                && self.scope.allows(name)
                && !loaded.iter().any(|n| n == name)
            {
                loaded.push(name.to_owned());
                added.push(name.to_owned());
            }
        }
        added
    }

    /// What the next request sends: see [`Registry::prompt`].
    pub fn prompt(&self) -> Prompt<'_> {
        let loaded = self.loaded();
        self.inner
            .registry
            .prompt_scoped(&self.inner.lazy, &loaded, &self.scope)
    }

    /// Calls a tool in this session.
    ///
    /// `tool_info` results load the tools they return. A deferred tool the
    /// model calls before loading it runs if its arguments are valid (and is
    /// loaded then, saving a round trip); if they are not, the error carries
    /// the tool's schema so the model can retry at once.
    ///
    /// A core tool sent a field it does not take is not called (even with
    /// [`CallOptions::lenient`], which would drop the field) when a tool
    /// attached or loaded in this session requires that field, or when the
    /// field holds the text of the message [`preload`](Self::preload) read
    /// last and a tool was attached to it: the error names that tool.
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        self.call_with(name, args, ctx, CallOptions::default())
            .await
    }

    /// [`call_with`](Self::call_with) for callers that can show more
    /// than JSON: the value, and the blocks of content when the tool
    /// returned a [`ToolOutput`](crate::ToolOutput).
    pub async fn call_output(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        options: CallOptions,
    ) -> Result<crate::CallOutput, ToolError> {
        crate::call::capture(ctx, |ctx| async move {
            self.call_with(name, args, &ctx, options).await
        })
        .await
    }

    /// [`call`](Self::call) with options (a time limit).
    pub async fn call_with(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        options: CallOptions,
    ) -> Result<Value, ToolError> {
        if name == CALL_TOOL {
            // The bridge: the same path as a direct call of the named tool.
            let (inner, args) = unpack_bridge_call(args)?;
            return Box::pin(self.call_with(&inner, args, ctx, options)).await;
        }
        let registry = &self.inner.registry;
        if !self.scope.allows(name) {
            let near = registry.nearest_names_scoped(name, 3, &self.scope);
            return Err(ToolError::unknown_tool(name, &near));
        }
        let scoped_ctx;
        let ctx = if self.scope.is_all() {
            ctx
        } else {
            // `tool_info` reads the scope from its context.
            scoped_ctx = ctx.clone().with((*self.scope).clone());
            &scoped_ctx
        };
        // A made-up name spelled like no tool: the attached tools its
        // arguments fit are what it most likely meant, before the tools
        // its words match.
        if registry.get(name).is_none() && registry.spelled_alike(name, 1, &self.scope).is_empty() {
            let meant = self.attached_fitting(&args, registry);
            if !meant.is_empty() {
                return Err(ToolError::unknown_tool(name, &meant));
            }
        }
        if let Some(tool) = registry.get(name).filter(|t| t.is_core())
            && let Some((field, other)) = self.field_of_another(tool, &args, registry)
        {
            let needs: Vec<&str> = crate::schema::required(other.input_schema()).collect();
            return Err(ToolError::invalid_arguments(
                name,
                "",
                format!(
                    "`{name}` does not take `{field}`; the tool for this is likely `{}` (it needs {}): call `{}`, or call `{name}` without `{field}`",
                    other.name(),
                    needs.join(", "),
                    other.name()
                ),
            ));
        }
        let result = registry.call_with(name, args, ctx, options).await;
        let Some(tool) = registry.get(name) else {
            return result;
        };
        if tool.name() == TOOL_INFO {
            if let Ok(answer) = &result {
                // Only tools returned with their schemas count as loaded.
                let names = answer["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|t| t.get("parameters").is_some())
                    .filter_map(|t| t["name"].as_str());
                self.load(names);
            }
            return result;
        }
        // Under the bridge (and native deferral) a deferred tool's schema is
        // never in the `tools` array: a failed call gets it back, once per
        // tool and session, so a small model that fails again and again is
        // not sent the whole schema every time. Eagerly every schema is in
        // `tools` already.
        let schema_sent =
            self.inner.lazy.strategy == LoadStrategy::Append || !self.inner.lazy.enabled;
        if tool.is_core() || !self.inner.lazy.enabled || (schema_sent && self.is_loaded(name)) {
            return result;
        }
        match result {
            Err(err) if err.kind() == ToolErrorKind::InvalidArguments => {
                let first = {
                    let mut shown = self
                        .inner
                        .schema_shown
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    !shown.iter().any(|n| n == name) && {
                        shown.push(name.to_owned());
                        true
                    }
                };
                if !first {
                    return Err(err);
                }
                let hint = if schema_sent {
                    format!(
                        "{err}. The tool `{name}` was not loaded yet; its schema is attached: retry with arguments that match it"
                    )
                } else {
                    format!(
                        "{err}. The schema of `{name}` is attached: retry with arguments that match it"
                    )
                };
                let mut data = json!({ "tool": canonical_spec(tool) });
                if let Some(problems) = err.data().and_then(|d| d.get("problems")) {
                    data["problems"] = problems.clone();
                }
                Err(ToolError::with_kind(ToolErrorKind::InvalidArguments, hint).with_data(data))
            }
            Err(err)
                if matches!(
                    err.kind(),
                    ToolErrorKind::NotCallable | ToolErrorKind::UnknownTool
                ) =>
            {
                Err(err)
            }
            other => {
                self.load([name]);
                other
            }
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("lazy", &self.inner.lazy.enabled)
            .field("loaded", &self.loaded())
            .finish_non_exhaustive()
    }
}
