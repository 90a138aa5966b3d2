//! Running the calls of one model reply: in parallel, each under the
//! call time limit and the turn's cancellation, arguments taken leniently
//! when the options say so, results cut to the size the options allow.

use std::time::Instant;

use futures_util::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Agent, ToolCallRequest, ToolOutcome};
use optimclaw::provider::{Dialect, ResultMedia};
use optimclaw::{CallOptions, Content, TOOL_INFO, ToolError, ToolErrorKind};

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
                let mut rich = None;
                let result = match &call.arguments {
                    Ok(_) if guarded => Ok(refusal.clone()),
                    Ok(args) => self
                        .session
                        .call_output(&call.name, args.clone(), ctx, options)
                        .await
                        .map(|out| {
                            rich = out.rich;
                            out.value
                        }),
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
                let (images, dropped) = images_of(rich);
                let mut content = cap_chars(content, self.options.max_result_chars);
                if !dropped.is_empty() {
                    content.push_str(&format!("\n[not shown: {}]", dropped.join("; ")));
                }
                ToolOutcome {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    content,
                    is_error,
                    elapsed: started.elapsed(),
                    blocks,
                    images,
                }
            }
        });
        join_all(runs).await
    }
}

/// Images sent with one tool result, at most (the core's
/// [`MAX_MEDIA_BLOCKS`](optimclaw::provider::MAX_MEDIA_BLOCKS)).
pub const MAX_IMAGES: usize = optimclaw::provider::MAX_MEDIA_BLOCKS;

/// The base64 size of one image sent with a tool result, at most (5 MiB:
/// Anthropic's limit for one image; the core's
/// [`MAX_MEDIA_BYTES`](optimclaw::provider::MAX_MEDIA_BYTES)).
pub const MAX_IMAGE_BYTES: usize = optimclaw::provider::MAX_MEDIA_BYTES;

/// The images of a tool's output the model may be shown, and a line for
/// each media block left out (over the limits, or a type the APIs do not
/// take; the result's text already names every block). Anthropic and
/// OpenAI take the same images, so one selection serves both wire formats.
fn images_of(rich: Option<optimclaw::ToolOutput>) -> (Vec<Content>, Vec<String>) {
    let Some(rich) = rich else {
        return (Vec::new(), Vec::new());
    };
    let media = ResultMedia::select(&rich, Dialect::Anthropic);
    (media.blocks, media.left_out)
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
    use super::{MAX_IMAGE_BYTES, MAX_IMAGES, cap_chars, images_of};
    use optimclaw::{Content, ToolOutput};

    #[test]
    fn images_are_bounded_in_number_size_and_type() {
        let mut output = ToolOutput::text("charts");
        for _ in 0..MAX_IMAGES + 1 {
            output = output.with_content(Content::image([1u8; 10], "image/png"));
        }
        output = output
            .with_content(Content::image(vec![0u8; MAX_IMAGE_BYTES], "image/jpeg"))
            .with_content(Content::image([1u8; 10], "image/tiff"))
            .with_content(Content::audio([1u8; 10], "audio/wav"));
        let (images, dropped) = images_of(Some(output));
        assert_eq!(images.len(), MAX_IMAGES);
        assert_eq!(dropped.len(), 3, "{dropped:?}");
        assert!(dropped[0].contains("past the first 4"), "{dropped:?}");
        assert!(dropped[1].contains("over the 5 MiB"), "{dropped:?}");
        assert!(dropped[2].contains("image/tiff"), "{dropped:?}");
        assert_eq!(images_of(None), (Vec::new(), Vec::new()));
    }

    #[test]
    fn cap_keeps_short_text_and_says_what_was_cut() {
        assert_eq!(cap_chars("abc".into(), 3), "abc");
        assert_eq!(cap_chars("abcdé".into(), 3), "abc\n[2 more characters cut]");
    }
}
