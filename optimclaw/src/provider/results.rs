//! Tool results in a provider's own shape, for a model loop of your own:
//! which media blocks of a [`ToolOutput`] each API is sent
//! ([`ResultMedia`]), and a whole Gemini `functionResponse` part
//! ([`gemini_function_response`]). `optimclaw-agent` sends Anthropic and
//! OpenAI results with the same selection.

use serde_json::{Map, Value, json};

use super::Dialect;
use crate::output::{CallOutput, Content, ToolOutput};

/// Media blocks sent with one tool result, at most.
pub const MAX_MEDIA_BLOCKS: usize = 4;

/// The base64 size of one media block sent with a tool result, at most
/// (5 MiB: Anthropic's limit for one image, well inside Gemini's 20 MB
/// request).
pub const MAX_MEDIA_BYTES: usize = 5 * 1024 * 1024;

/// Image types Anthropic's and OpenAI's APIs take.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// What Gemini takes in a function response's parts: images (no GIF) and
/// PDF documents.
const GEMINI_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp", "application/pdf"];

/// The media blocks of a tool's result that a provider is sent, and a line
/// naming each block left out (over the limits, or a type the API does
/// not take). The result's text already names every block
/// ([`ToolOutput::value`]), so a block left out is never lost silently.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ResultMedia {
    /// The blocks to send, in order: images, and for Gemini PDF resources.
    pub blocks: Vec<Content>,
    /// One line per media block left out.
    pub left_out: Vec<String>,
}

impl ResultMedia {
    /// Picks the blocks of `output` that `dialect`'s API takes with a tool
    /// result: images for Anthropic and OpenAI, images and PDFs for
    /// Gemini, none for MCP (whose results carry every block as it is)
    /// and text. At most [`MAX_MEDIA_BLOCKS`], each at most
    /// [`MAX_MEDIA_BYTES`] of base64.
    ///
    /// ```
    /// use optimclaw::provider::{Dialect, ResultMedia};
    /// use optimclaw::{Content, ToolOutput};
    ///
    /// let output = ToolOutput::text("two frames")
    ///     .with_content(Content::image(b"png", "image/png"))
    ///     .with_content(Content::image(b"gif", "image/gif"));
    /// let media = ResultMedia::select(&output, Dialect::Gemini);
    /// assert_eq!(media.blocks.len(), 1);
    /// assert_eq!(media.left_out, ["an image of type image/gif, which this API is not sent"]);
    /// ```
    pub fn select(output: &ToolOutput, dialect: Dialect) -> Self {
        let accepted = match dialect {
            Dialect::Gemini => GEMINI_TYPES,
            Dialect::OpenAi
            | Dialect::OpenAiStrict
            | Dialect::OpenAiResponses
            | Dialect::Anthropic => IMAGE_TYPES,
            Dialect::Mcp | Dialect::Text => &[],
        };
        let mut media = Self::default();
        if accepted.is_empty() {
            return media;
        }
        for block in &output.content {
            let Some((kind, mime_type, data)) = media_of(block) else {
                continue;
            };
            if !accepted.contains(&mime_type) {
                media.left_out.push(format!(
                    "{kind} of type {mime_type}, which this API is not sent"
                ));
            } else if data.len() > MAX_MEDIA_BYTES {
                media.left_out.push(format!(
                    "{kind} of {:.1} MiB, over the {} MiB a model is sent",
                    data.len() as f64 / 1_048_576.0,
                    MAX_MEDIA_BYTES / 1_048_576
                ));
            } else if media.blocks.len() == MAX_MEDIA_BLOCKS {
                media
                    .left_out
                    .push(format!("{kind} past the first {MAX_MEDIA_BLOCKS}"));
            } else {
                media.blocks.push(block.clone());
            }
        }
        media
    }
}

/// A media block's kind (as the lines left out name it), media type and
/// base64 data: images, and binary resources with a media type. Audio is
/// not media here: none of these APIs takes it in a tool result.
fn media_of(block: &Content) -> Option<(&'static str, &str, &str)> {
    match block {
        Content::Image { data, mime_type } => Some(("an image", mime_type, data)),
        Content::Resource { resource } => match (&resource.mime_type, &resource.blob) {
            (Some(mime_type), Some(blob)) => Some(("a resource", mime_type, blob)),
            _ => None,
        },
        _ => None,
    }
}

/// A tool's result as a Gemini content part:
/// `{"functionResponse": {"id"?, "name", "response", "parts"?}}`.
///
/// `response` is `{"output": …}` with the call's JSON value
/// ([`CallOutput::value`]: the structured value, or the text naming every
/// block), or `{"error": …}` for a failed call, as Gemini's documentation
/// asks; the images and PDFs of a rich result go in `parts` as
/// `inlineData` ([`ResultMedia::select`]), and `response.left_out` names
/// any left out. `id` is the function call's id, when the model gave one.
///
/// ```
/// use optimclaw::provider::gemini_function_response;
/// use optimclaw::{CallOutput, Content, ToolOutput};
///
/// let rich = ToolOutput::text("a chart").with_content(Content::image(b"png", "image/png"));
/// let output = CallOutput::new(rich.value(), Some(rich));
/// let part = gemini_function_response("chart", Some("call-1"), Ok(&output));
/// assert_eq!(part["functionResponse"]["response"]["output"], "a chart\n[image image/png, 3 B]");
/// assert_eq!(part["functionResponse"]["parts"][0]["inlineData"]["mimeType"], "image/png");
/// ```
pub fn gemini_function_response(
    name: &str,
    id: Option<&str>,
    result: Result<&CallOutput, &str>,
) -> Value {
    let mut response = Map::new();
    let mut parts = Vec::new();
    match result {
        Ok(output) => {
            response.insert("output".to_owned(), output.value.clone());
            if let Some(rich) = &output.rich {
                let media = ResultMedia::select(rich, Dialect::Gemini);
                parts = media
                    .blocks
                    .iter()
                    .filter_map(media_of)
                    .map(|(_, mime_type, data)| {
                        json!({"inlineData": {"mimeType": mime_type, "data": data}})
                    })
                    .collect();
                if !media.left_out.is_empty() {
                    response.insert("left_out".to_owned(), json!(media.left_out));
                }
            }
        }
        Err(message) => {
            response.insert("error".to_owned(), json!(message));
        }
    }
    let mut function_response = Map::new();
    if let Some(id) = id {
        function_response.insert("id".to_owned(), json!(id));
    }
    function_response.insert("name".to_owned(), json!(name));
    function_response.insert("response".to_owned(), Value::Object(response));
    if !parts.is_empty() {
        function_response.insert("parts".to_owned(), Value::Array(parts));
    }
    json!({ "functionResponse": function_response })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdf() -> Content {
        Content::resource_blob("file:///report.pdf", "application/pdf", b"%PDF-1.7")
    }

    #[test]
    fn each_api_gets_the_types_it_takes() {
        let output = ToolOutput::text("t")
            .with_content(Content::image(b"a", "image/gif"))
            .with_content(Content::audio(b"b", "audio/wav"))
            .with_content(pdf());
        let anthropic = ResultMedia::select(&output, Dialect::Anthropic);
        assert_eq!(anthropic.blocks, [Content::image(b"a", "image/gif")]);
        assert_eq!(
            anthropic.left_out,
            ["a resource of type application/pdf, which this API is not sent"]
        );
        let gemini = ResultMedia::select(&output, Dialect::Gemini);
        assert_eq!(gemini.blocks, [pdf()]);
        assert_eq!(
            gemini.left_out,
            ["an image of type image/gif, which this API is not sent"]
        );
        for dialect in [Dialect::Mcp, Dialect::Text] {
            assert_eq!(
                ResultMedia::select(&output, dialect),
                ResultMedia::default()
            );
        }
    }

    #[test]
    fn media_are_bounded_in_number_and_size() {
        let mut output = ToolOutput::text("t");
        for _ in 0..=MAX_MEDIA_BLOCKS {
            output = output.with_content(Content::image(b"x", "image/png"));
        }
        let big = Content::image(vec![0u8; MAX_MEDIA_BYTES], "image/jpeg");
        output = output.with_content(big);
        let media = ResultMedia::select(&output, Dialect::OpenAi);
        assert_eq!(media.blocks.len(), MAX_MEDIA_BLOCKS);
        assert_eq!(
            media.left_out,
            [
                "an image past the first 4".to_owned(),
                "an image of 6.7 MiB, over the 5 MiB a model is sent".to_owned()
            ]
        );
    }

    #[test]
    fn gemini_parts_carry_media_and_name_what_was_left_out() {
        let rich = ToolOutput::text("report")
            .with_content(pdf())
            .with_content(Content::image(b"g", "image/gif"));
        let output = CallOutput::new(rich.value(), Some(rich));
        let part = gemini_function_response("report", None, Ok(&output));
        let response = &part["functionResponse"];
        assert!(response.get("id").is_none());
        assert_eq!(response["name"], "report");
        assert_eq!(
            response["parts"],
            json!([{"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0xLjc="}}])
        );
        assert_eq!(
            response["response"]["left_out"],
            json!(["an image of type image/gif, which this API is not sent"])
        );
    }

    #[test]
    fn gemini_errors_and_plain_values() {
        let failed = gemini_function_response("f", Some("c1"), Err("no such file"));
        assert_eq!(
            failed,
            json!({"functionResponse": {"id": "c1", "name": "f", "response": {"error": "no such file"}}})
        );
        let plain = CallOutput::new(json!({"n": 3}), None);
        let part = gemini_function_response("f", None, Ok(&plain));
        assert_eq!(
            part,
            json!({"functionResponse": {"name": "f", "response": {"output": {"n": 3}}}})
        );
    }
}
