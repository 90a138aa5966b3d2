//! The tokens of each request's tools array, next to what the eager
//! array would hold (feature `tokens`), for [`RequestUsage`].

use serde_json::Value;

use super::{Agent, RequestUsage};

impl Agent {
    /// Counts `tools` (and the system `note`) in o200k tokens into `usage`,
    /// beside the eager array's count, measured once per agent.
    #[cfg(feature = "tokens")]
    pub(super) fn measure_tools(
        &mut self,
        usage: &mut RequestUsage,
        tools: &[Value],
        note: Option<&str>,
    ) {
        use optimclaw::provider::RenderOptions;
        use optimclaw::tokens::{Encoding, RequestTokens};
        usage.tool_tokens = Some(RequestTokens::measure(tools, note, Encoding::O200kBase).total());
        if self.eager_tool_tokens.is_none() {
            let eager = self
                .session
                .registry()
                .prompt::<&str>(&optimclaw::LazyConfig::eager(), &[])
                .render(self.dialect(), RenderOptions::default());
            self.eager_tool_tokens =
                Some(RequestTokens::measure(&eager.tools, None, Encoding::O200kBase).total());
        }
        usage.eager_tool_tokens = self.eager_tool_tokens;
    }

    /// Without feature `tokens` nothing is counted.
    #[cfg(not(feature = "tokens"))]
    pub(super) fn measure_tools(&mut self, _: &mut RequestUsage, _: &[Value], _: Option<&str>) {}
}
