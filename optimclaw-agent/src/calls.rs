//! Running the calls of one model reply: in parallel, each under the
//! call time limit and the turn's cancellation, arguments taken leniently
//! when the options say so, results cut to the size the options allow.

use std::time::Instant;

use futures_util::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Agent, ToolCallRequest, ToolOutcome};
use optimclaw::{CallOptions, TOOL_INFO, ToolError, ToolErrorKind};

impl Agent {
    pub(super) async fn run_calls(
        &self,
        calls: &[ToolCallRequest],
        guarded: &[bool],
        refusal: &Value,
        cancel: &CancellationToken,
    ) -> Vec<ToolOutcome> {
        let ctx = self.ctx.clone().with_cancellation(cancel.child_token());
        let options = CallOptions::default()
            .with_timeout(self.options.call_timeout)
            .with_lenient(self.options.lenient_arguments);
        let runs = calls.iter().zip(guarded).map(|(call, &guarded)| {
            let ctx = ctx.clone().with_call_id(call.id.as_str());
            async move {
                let ctx = &ctx;
                let started = Instant::now();
                let result = match &call.arguments {
                    Ok(_) if guarded => Ok(refusal.clone()),
                    Ok(args) => {
                        self.session
                            .call_with(&call.name, args.clone(), ctx, options)
                            .await
                    }
                    Err(why) => Err(ToolError::with_kind(
                        ToolErrorKind::InvalidArguments,
                        format!(
                            "the arguments of `{}` are not a JSON object ({why}); send the arguments again as one JSON object",
                            call.name
                        ),
                    )),
                };
                // Native deferral on Anthropic: tool_info answers with
                // references the provider expands in place.
                let blocks = match &result {
                    Ok(value) if call.name == TOOL_INFO && self.native_references() => {
                        serde_json::from_value::<optimclaw::ToolInfoAnswer>(value.clone())
                            .ok()
                            .map(|answer| Value::Array(optimclaw::provider::tool_references(&answer)))
                    }
                    _ => None,
                };
                let (content, is_error) = match result {
                    Ok(value) => (value.to_string(), false),
                    Err(err) => (err.to_json().to_string(), true),
                };
                ToolOutcome {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    content: cap_chars(content, self.options.max_result_chars),
                    is_error,
                    elapsed: started.elapsed(),
                    blocks,
                }
            }
        });
        join_all(runs).await
    }
}

fn cap_chars(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text,
        Some((cut, _)) => {
            let left = text[cut..].chars().count();
            format!("{}\n[{left} more characters cut]", &text[..cut])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cap_chars;

    #[test]
    fn cap_keeps_short_text_and_says_what_was_cut() {
        assert_eq!(cap_chars("abc".into(), 3), "abc");
        assert_eq!(cap_chars("abcdé".into(), 3), "abc\n[2 more characters cut]");
    }
}
