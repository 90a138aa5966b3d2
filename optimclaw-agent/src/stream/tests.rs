use super::*;

fn run(format: WireFormat, text: &str) -> Result<(Value, String), StreamError> {
    let mut sse = Sse::default();
    let mut parts = Assembler::new(format);
    let mut shown = String::new();
    // Byte by byte: events split anywhere must come out whole.
    for b in text.as_bytes() {
        for event in sse.push(&[*b]) {
            if let Some(t) = parts.take(&event)? {
                shown.push_str(&t);
            }
        }
    }
    assert!(parts.is_done(), "not done");
    Ok((parts.finish(), shown))
}

/// Feeds events until the first-call cut ends the reply.
fn run_cut(text: &str, cut: &TextCut<'_>) -> Option<Value> {
    let mut sse = Sse::default();
    let mut parts = Assembler::new(WireFormat::OpenAiChat);
    for event in sse.push(text.as_bytes()) {
        parts.take(&event).unwrap();
        if let Assembler::OpenAi(openai) = &mut parts
            && openai.cut_at_first_call(cut)
        {
            return Some(parts.finish());
        }
    }
    None
}

#[test]
fn the_reply_ends_at_its_first_complete_call() {
    let call = |index: u64, id: &str, name: &str, args: &str| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": args}}
            ]}}], "timings": {"cache_n": 40, "prompt_n": 60, "predicted_n": 9}})
        )
    };
    let never = |_: &str| None;
    // Arguments in pieces: not complete until the object closes.
    let pieces = call(0, "a", "calc", "{\"e\": ") + &call(0, "", "", "\"1+1\"");
    assert_eq!(run_cut(&pieces, &never), None);
    let whole = pieces.clone() + &call(0, "", "", "}") + &call(1, "b", "small", "{");
    let reply = run_cut(&whole, &never).expect("cut");
    let calls = reply.pointer("/choices/0/message/tool_calls").unwrap();
    assert_eq!(calls.as_array().unwrap().len(), 1);
    assert_eq!(calls[0]["function"]["arguments"], "{\"e\": \"1+1\"}");
    assert_eq!(
        reply.pointer("/choices/0/finish_reason").unwrap(),
        "tool_calls"
    );
    // No usage chunk came: the prompt tokens are the timings'.
    assert_eq!(reply["usage"]["prompt_tokens"], 100);
    assert_eq!(reply["usage"]["prompt_tokens_details"]["cached_tokens"], 40);
    // Text: cut where the function says.
    let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{call} {again\"}}]}\n\n";
    let reply = run_cut(text, &|t: &str| t.find(' ').map(|i| t[..i].to_owned())).unwrap();
    assert_eq!(
        reply.pointer("/choices/0/message/content").unwrap(),
        "{call}"
    );
    assert_eq!(reply.pointer("/choices/0/finish_reason").unwrap(), "stop");
}

#[test]
fn openai_text_and_interleaved_parallel_calls() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
        ": keep-alive\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"x\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"y\",\"arguments\":\"{\\\"q\\\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":1}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n",
        "data: [DONE]\n\n"
    );
    let (reply, shown) = run(WireFormat::OpenAiChat, stream).unwrap();
    assert_eq!(shown, "Hello");
    let calls = &reply["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[0]["function"]["arguments"], "{}");
    assert_eq!(calls[1]["function"]["arguments"], "{\"q\":1}");
    assert_eq!(reply["usage"]["prompt_tokens"], 5);
}

#[test]
fn anthropic_text_and_tool_input_in_pieces() {
    let stream = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[],\"model\":\"c\",\"usage\":{\"input_tokens\":9,\"cache_read_input_tokens\":4,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"2}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":7}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    );
    let (reply, shown) = run(WireFormat::AnthropicMessages, stream).unwrap();
    assert_eq!(shown, "Hi");
    assert_eq!(reply["content"][1]["input"], json!({"a": 2}));
    assert_eq!(reply["usage"]["output_tokens"], 7);
    assert_eq!(reply["usage"]["cache_read_input_tokens"], 4);
    assert_eq!(reply["stop_reason"], "tool_use");
}

#[test]
fn error_events_and_bad_json_are_errors() {
    let overloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let mut parts = Assembler::new(WireFormat::AnthropicMessages);
    let mut sse = Sse::default();
    let event = sse.push(overloaded.as_bytes()).remove(0);
    assert!(matches!(parts.take(&event), Err(StreamError::Retry(m)) if m.contains("Overloaded")));
    let bad = "data: {not json\n\n";
    let mut parts = Assembler::new(WireFormat::OpenAiChat);
    let event = Sse::default().push(bad.as_bytes()).remove(0);
    assert!(matches!(parts.take(&event), Err(StreamError::Retry(_))));
}
