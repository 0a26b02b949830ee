//! The MCP server's stdio transport: one JSON-RPC message per line, and an answer to every
//! request, including those that cannot be decoded.
//!
//! rmcp's own stdio transport drops unparsable lines without a word (its choice, to avoid error
//! storms between two peers), answers a message of the wrong shape without its id, and drops
//! lines over its size limit; a client then waits forever on that id. This one answers:
//!
//! - input that is not JSON (broken syntax, nesting deeper than 128, a line over
//!   [`MAX_MESSAGE_BYTES`]): `-32700` Parse error;
//! - JSON that is not a JSON-RPC request the server knows: `-32600` Invalid Request;
//! - an `id` that is not a string or a number (`null`, `true`, an object): `-32600` with id
//!   `null`; a number rmcp cannot hold as the `i64` it echoes (`2^64`, `1e30`, `1.0`):
//!   `-32600`, since served it would come back as another token;
//! - a batch: batches are not served (MCP dropped them in 2025-06-18); each request in it gets
//!   its own `-32600`, in one array, as JSON-RPC asks;
//!
//! each with the request's `id` as the exact token it sent whenever it can be read (from the
//! object, or from the line's start when the rest is broken or too long), else `null`.
//! Notifications (no `id` member) that cannot be decoded are dropped, as JSON-RPC says. Text
//! is decoded leniently, as a UTF-8 encoder would: bytes that are not UTF-8 and `\uXXXX`
//! escapes of lone UTF-16 surrogates (which JavaScript clients produce when they cut a string
//! in the middle of an emoji) become U+FFFD, so such a request is served rather than refused.
//!
//! Reading and writing run on two threads joined by channels: `receive` only waits on a
//! channel, so it is cancel-safe inside rmcp's `select!`, and answers written by either side
//! leave whole, one line each, in the order they were queued.

use std::future::Future;
use std::io::{BufRead, Write};
use std::sync::mpsc as std_mpsc;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// The longest message the server reads, in bytes (16 MiB, rmcp's own limit). A longer line is
/// answered with a parse error and skipped.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC's code for input that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// What the writer thread is asked to do.
enum Out {
    /// Write this line (a newline is added).
    Line(Vec<u8>),
    /// Flush, say so, and stop.
    Close(oneshot::Sender<()>),
}

/// Standard input and output as an rmcp transport.
pub struct Stdio {
    messages: mpsc::UnboundedReceiver<RxJsonRpcMessage<RoleServer>>,
    out: Option<std_mpsc::Sender<Out>>,
}

impl Stdio {
    /// Starts the reader and writer threads on the process's standard input and output.
    pub fn new() -> Stdio {
        Stdio::over(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
    }

    /// The same over any reader and writer.
    fn over(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) -> Stdio {
        let (out_tx, out_rx) = std_mpsc::channel();
        let (msg_tx, messages) = mpsc::unbounded_channel();
        let replies = out_tx.clone();
        std::thread::spawn(move || read(input, MAX_MESSAGE_BYTES, &msg_tx, &replies));
        std::thread::spawn(move || write(output, &out_rx));
        Stdio {
            messages,
            out: Some(out_tx),
        }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = match (&self.out, serde_json::to_vec(&item)) {
            (Some(out), Ok(line)) => out.send(Out::Line(line)).map_err(|_| closed()),
            (None, _) => Err(closed()),
            (_, Err(e)) => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let Some(out) = self.out.take() else {
            return Ok(());
        };
        let (done_tx, done) = oneshot::channel();
        if out.send(Out::Close(done_tx)).is_ok() {
            // An error means the writer already stopped: standard output is gone.
            let _ = done.await;
        }
        Ok(())
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "standard output is closed")
}

/// Writes each queued line until asked to close or standard output fails.
fn write(mut output: impl Write, lines: &std_mpsc::Receiver<Out>) {
    for out in lines {
        match out {
            Out::Line(mut line) => {
                line.push(b'\n');
                if output
                    .write_all(&line)
                    .and_then(|()| output.flush())
                    .is_err()
                {
                    return;
                }
            }
            Out::Close(done) => {
                let _ = output.flush();
                let _ = done.send(());
                return;
            }
        }
    }
}

/// Reads lines until end of input: messages go to `messages`, answers to what cannot be
/// decoded go straight to `replies`.
fn read(
    mut input: impl BufRead,
    max_bytes: usize,
    messages: &mpsc::UnboundedSender<RxJsonRpcMessage<RoleServer>>,
    replies: &std_mpsc::Sender<Out>,
) {
    let mut line = Vec::new();
    loop {
        let read = match read_line(&mut input, &mut line, max_bytes) {
            Ok(Some(read)) => read,
            Ok(None) | Err(_) => return,
        };
        let decoded = match read {
            Line::Whole => decode(&line),
            Line::TooLong => Decoded::Reply(error(
                leading_id(&line),
                PARSE_ERROR,
                &format!("Parse error: the message is longer than {max_bytes} bytes"),
            )),
        };
        line.clear();
        let sent = match decoded {
            Decoded::Message(message) => messages.send(*message).is_ok(),
            Decoded::Reply(reply) => replies.send(Out::Line(reply)).is_ok(),
            Decoded::Ignore => true,
        };
        if !sent {
            return;
        }
    }
}

/// How a line ended.
#[derive(Debug, PartialEq)]
enum Line {
    /// `line` holds it, without its newline.
    Whole,
    /// It was longer than the limit: `line` holds its first `max_bytes` bytes, the rest was
    /// read and dropped.
    TooLong,
}

/// Reads one line into `line` (cleared by the caller) without ever holding more than
/// `max_bytes` of it. `None` at the end of input; a last line without a newline still counts.
fn read_line(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    max_bytes: usize,
) -> std::io::Result<Option<Line>> {
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Some(Line::TooLong),
                (false, true) => None,
                (false, false) => Some(Line::Whole),
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let content = &available[..newline.unwrap_or(take)];
        let room = max_bytes.saturating_sub(line.len());
        if content.len() > room {
            too_long = true;
        }
        line.extend_from_slice(&content[..content.len().min(room)]);
        input.consume(take);
        if newline.is_some() {
            return Ok(Some(if too_long { Line::TooLong } else { Line::Whole }));
        }
    }
}

/// What to do with one line.
enum Decoded {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer with this error response.
    Reply(Vec<u8>),
    /// Nothing: a blank line, or a notification that cannot be decoded.
    Ignore,
}

/// Decodes one line into a message, or the error response it gets.
fn decode(line: &[u8]) -> Decoded {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Ignore;
    }
    let text = String::from_utf8_lossy(line);
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => match without_lone_surrogates(&text).map(|t| serde_json::from_str(&t)) {
            Some(Ok(value)) => value,
            _ => {
                let message = format!("Parse error: {e}");
                return Decoded::Reply(error(leading_id(line), PARSE_ERROR, &message));
            }
        },
    };
    if let Value::Array(members) = &value {
        return batch(line, members);
    }
    let Some(id) = value.get("id") else {
        // A notification: served when it decodes, else dropped, as JSON-RPC says.
        return match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(message) => Decoded::Message(Box::new(message)),
            Err(_) => Decoded::Ignore,
        };
    };
    let raw_id = leading_id(line);
    if !is_served_id(id) {
        return Decoded::Reply(error(raw_id, INVALID_REQUEST, BAD_ID));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(message) => Decoded::Message(Box::new(message)),
        Err(e) => {
            let message = format!("Invalid request: {e}");
            Decoded::Reply(error(raw_id, INVALID_REQUEST, &message))
        }
    }
}

/// What an id the server cannot serve gets.
const BAD_ID: &str = "Invalid request: the id must be a string or an integer from -2^63 to 2^63-1";

/// The answer to a batch (`members`, the line's top-level array as parsed): batches are not
/// served, and JSON-RPC wants each member answered, so each request in it gets its own
/// `-32600` (with its id as sent, read from the member's text), in one array; notifications
/// get nothing, and a batch of notifications gets no answer at all. An empty batch is one
/// `-32600`.
fn batch(line: &[u8], members: &[Value]) -> Decoded {
    if members.is_empty() {
        return Decoded::Reply(error(
            None,
            INVALID_REQUEST,
            "Invalid request: an empty batch",
        ));
    }
    let message = "Invalid request: batches are not supported; send each request on its own line";
    let mut answers = Vec::new();
    let mut scan = Scan { text: line, at: 0 };
    scan.skip_whitespace();
    scan.eat(b'[');
    for member in members {
        // The member's text, for its id as sent: the array parsed, so the scan finds it.
        scan.skip_whitespace();
        let start = scan.at;
        scan.value();
        let text = &line[start..scan.at];
        scan.skip_whitespace();
        scan.eat(b',');
        let notification = member.as_object().is_some_and(|m| !m.contains_key("id"));
        if !notification {
            answers.push(error(leading_id(text), INVALID_REQUEST, message));
        }
    }
    if answers.is_empty() {
        return Decoded::Ignore;
    }
    let mut reply = b"[".to_vec();
    reply.extend_from_slice(&answers.join(&b','));
    reply.push(b']');
    Decoded::Reply(reply)
}

/// A JSON-RPC error response, serialised, its id written as `id` (the exact JSON text the
/// request sent) or `null`.
fn error(id: Option<&[u8]>, code: i64, message: &str) -> Vec<u8> {
    #[derive(Serialize)]
    struct Error<'a> {
        code: i64,
        message: &'a str,
    }
    let mut out = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    out.extend_from_slice(id.unwrap_or(b"null"));
    out.extend_from_slice(br#","error":"#);
    serde_json::to_writer(&mut out, &Error { code, message }).expect("an error object serialises");
    out.push(b'}');
    out
}

/// Whether the server serves a request with this id: a string, or an integer it can echo
/// exactly (rmcp holds ids as `i64`; one written as `1.0` or `1e2`, or past the range, would
/// come back as another token, which its client could not match).
fn is_served_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || (n.is_u64() && n.as_u64() <= Some(i64::MAX as u64)),
        _ => false,
    }
}

/// The `id` member of the JSON object `text` starts with, as written, when it is a string or
/// a number; read without parsing anything after it, so a message that is broken, too deep or
/// too long after its id still gets an answer its client can match. Members before the id are
/// skipped without recursion.
fn leading_id(text: &[u8]) -> Option<&[u8]> {
    let mut scan = Scan { text, at: 0 };
    scan.skip_whitespace();
    scan.eat(b'{')?;
    loop {
        scan.skip_whitespace();
        let key = scan.string()?;
        scan.skip_whitespace();
        scan.eat(b':')?;
        scan.skip_whitespace();
        let start = scan.at;
        scan.value()?;
        if key == b"\"id\"" {
            let raw = &text[start..scan.at];
            let id: Value = serde_json::from_slice(raw).ok()?;
            return matches!(id, Value::String(_) | Value::Number(_)).then_some(raw);
        }
        scan.skip_whitespace();
        scan.eat(b',')?;
    }
}

/// A cursor over JSON text that skips values without building them.
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Skips a string, quotes included, and returns it as written.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        self.eat(b'"')?;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(&self.text[start..self.at]);
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// Skips one value; nesting is counted, not recursed into.
    fn value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                _ if depth == 0 => {
                    // A scalar: runs to the next delimiter.
                    let end = self.text[self.at..]
                        .iter()
                        .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                        .map_or(self.text.len(), |i| self.at + i);
                    if end == self.at {
                        return None;
                    }
                    self.at = end;
                    return Some(());
                }
                _ => self.at += 1,
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

/// `text` with each `\uXXXX` escape of a lone UTF-16 surrogate replaced by `\ufffd`; `None`
/// when there is none. A backslash only starts an escape inside a string, so escapes are found
/// by walking backslashes alone.
fn without_lone_surrogates(text: &str) -> Option<String> {
    fn unit(escape: &[u8]) -> Option<u16> {
        let hex = escape.strip_prefix(b"\\u")?.get(..4)?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    }
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut at = 0;
    // `at` may pass the end: a line can end in a backslash.
    while let Some(offset) = bytes
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\\'))
    {
        at += offset;
        let Some(high) = unit(&bytes[at..]) else {
            at += 2; // any other escape, or a broken one the parser reports
            continue;
        };
        let lone = match high {
            0xD800..=0xDBFF => match unit(&bytes[(at + 6).min(bytes.len())..]) {
                Some(0xDC00..=0xDFFF) => {
                    at += 12; // a pair: one character
                    continue;
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
            out.extend_from_slice(&bytes[copied..at]);
            out.extend_from_slice(b"\\ufffd");
            copied = at + 6;
        }
        at += 6;
    }
    let mut out = out?;
    out.extend_from_slice(&bytes[copied..]);
    // Only ASCII escapes were replaced by ASCII: still UTF-8.
    Some(String::from_utf8(out).expect("ASCII replaced by ASCII stays UTF-8"))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn reply(decoded: Decoded) -> Value {
        match decoded {
            Decoded::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            Decoded::Message(m) => panic!("decoded a message: {m:?}"),
            Decoded::Ignore => panic!("ignored"),
        }
    }

    fn request(id: i64, query: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"memory_search","arguments":{{"query":"{query}"}}}}}}"#
        )
    }

    #[test]
    fn a_lone_surrogate_is_read_as_a_replacement_character() {
        for query in [
            r"cut \ud83d",
            r"\udc00 tail",
            r"\ud800\ud800",
            r"a \ud83d\ude00 \ud800",
        ] {
            let line = request(7, query);
            let Decoded::Message(message) = decode(line.as_bytes()) else {
                panic!("{query} was not decoded");
            };
            let text = serde_json::to_string(&message).unwrap();
            assert!(text.contains('\u{FFFD}'), "{text}");
        }
        // A pair is one character, and an escaped backslash starts no escape.
        assert_eq!(without_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(without_lone_surrogates(r#""\\ud800""#), None);
        assert_eq!(
            without_lone_surrogates(r#""\ud800x\\\udc00""#).as_deref(),
            Some(r#""\ufffdx\\\ufffd""#)
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_as_replacement_characters() {
        let mut line = request(3, "caf").into_bytes();
        let at = line.windows(3).position(|w| w == b"caf").unwrap() + 3;
        line.insert(at, 0xE9); // Latin-1 é
        assert!(matches!(decode(&line), Decoded::Message(_)));
    }

    #[test]
    fn unparsable_input_is_a_parse_error_with_the_id_when_it_can_be_read() {
        let broken = reply(decode(br#"{"jsonrpc":"2.0","id":3,"method":"#));
        assert_eq!(broken["id"], 3);
        assert_eq!(broken["error"]["code"], PARSE_ERROR);

        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let deep = reply(decode(deep.as_bytes()));
        assert_eq!(deep["id"], Value::Null);
        assert_eq!(deep["error"]["code"], PARSE_ERROR);
        assert!(deep["error"]["message"]
            .as_str()
            .unwrap()
            .contains("recursion"));

        let nested = format!(
            r#"{{"jsonrpc":"2.0","id":"deep","params":{}{}}}"#,
            "[".repeat(1000),
            "]".repeat(1000)
        );
        assert_eq!(reply(decode(nested.as_bytes()))["id"], "deep");
        assert_eq!(reply(decode(b"not json"))["id"], Value::Null);
    }

    #[test]
    fn json_of_the_wrong_shape_is_an_invalid_request_with_its_id() {
        let answer = reply(decode(
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}"#,
        ));
        assert_eq!(answer["id"], 4);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        // A batch: each request answered, by its id as sent; notifications are not.
        let batch = reply(decode(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"method":"x"}, 2, {"id":1.50}]"#,
        ));
        let ids: Vec<_> = batch.as_array().unwrap().iter().map(|m| &m["id"]).collect();
        assert_eq!(ids, [&json!(1), &Value::Null, &json!(1.5)]);
        assert!(batch[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches are not supported"));
        assert!(matches!(decode(br#"[{"method":"x"}]"#), Decoded::Ignore));
        assert_eq!(reply(decode(b" [ ] "))["error"]["code"], INVALID_REQUEST);
        // A notification gets no answer, even a broken one; neither does a blank line.
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","method":"notifications/unknown","params":[1]}"#),
            Decoded::Ignore
        ));
        assert!(matches!(decode(b"  \r"), Decoded::Ignore));
    }

    #[test]
    fn an_id_is_echoed_as_sent_and_one_that_cannot_be_is_refused() {
        let ping = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        for id in ["null", "true", "{}", "[1]"] {
            let Decoded::Reply(answer) = decode(ping(id).as_bytes()) else {
                panic!("{id} was served");
            };
            let answer = String::from_utf8(answer).unwrap();
            assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600"#));
        }
        for id in [
            "18446744073709551616",
            "1e30",
            "1.0",
            "-9223372036854775809",
        ] {
            let Decoded::Reply(answer) = decode(ping(id).as_bytes()) else {
                panic!("{id} was served");
            };
            let answer = String::from_utf8(answer).unwrap();
            assert!(answer.contains(&format!(r#""id":{id},"#)), "{answer}");
        }
        for id in [
            "9223372036854775807",
            "-9223372036854775808",
            "0",
            r#""x\"y""#,
        ] {
            assert!(
                matches!(decode(ping(id).as_bytes()), Decoded::Message(_)),
                "{id}"
            );
        }
    }

    #[test]
    fn a_line_ending_in_a_backslash_is_a_parse_error() {
        for line in [
            &b"x\\"[..],
            b"\\",
            br#"{"id":1,"a":"\"#,
            b"\\u",
            b"\\ud800\\",
        ] {
            assert_eq!(reply(decode(line))["error"]["code"], PARSE_ERROR);
        }
    }

    #[test]
    fn the_id_is_read_from_the_start_of_a_broken_object() {
        let cases = [
            (r#"{"id": 12, "x"#, json!(12)),
            (
                r#"{"a":{"b":[1,"}",{"c":"\"]"}]},"n":-1.5e3,"id":"x y""#,
                json!("x y"),
            ),
            (r#"  {"jsonrpc":"2.0" , "id" : "q" ,"#, json!("q")),
        ];
        for (text, id) in cases {
            let read = leading_id(text.as_bytes()).map(|raw| serde_json::from_slice(raw).unwrap());
            assert_eq!(read, Some(id), "{text}");
        }
        for text in [
            r#"{"id":null}"#,
            r#"{"id":[1]}"#,
            r#"[{"id":1}]"#,
            r#"{"a":1"#,
            "",
            "{",
        ] {
            assert_eq!(leading_id(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_and_the_next_one_read() {
        let text = b"0123456789\nshort\ntail without newline";
        let mut input = std::io::Cursor::new(&text[..]);
        let mut line = Vec::new();
        let mut lines = Vec::new();
        while let Some(read) = read_line(&mut input, &mut line, 8).unwrap() {
            lines.push((read, String::from_utf8(std::mem::take(&mut line)).unwrap()));
        }
        assert_eq!(
            lines,
            [
                (Line::TooLong, "01234567".to_string()),
                (Line::Whole, "short".to_string()),
                (Line::TooLong, "tail wit".to_string()),
            ]
        );
    }

    /// Collects what the writer thread writes.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_request_is_delivered_or_answered_before_close_returns() {
        let input = [
            request(1, "fine"),
            "{\"jsonrpc\":\"2.0\",\"id\":2,".to_string(),
            request(3, r"\ud800"),
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}"#.to_string(),
        ]
        .join("\n");
        let sink = Sink::default();
        let mut transport = Stdio::over(std::io::Cursor::new(input.into_bytes()), sink.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let delivered = runtime.block_on(async {
            let mut delivered = Vec::new();
            while let Some(message) = transport.receive().await {
                delivered.push(serde_json::to_value(&message).unwrap()["id"].clone());
            }
            transport.close().await.unwrap();
            delivered
        });
        assert_eq!(delivered, [json!(1), json!(3)]);
        let written = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let answers: Vec<Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let ids: Vec<_> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].clone()))
            .collect();
        assert_eq!(
            ids,
            [
                (json!(2), json!(PARSE_ERROR)),
                (json!(4), json!(INVALID_REQUEST))
            ]
        );
    }

    proptest! {
        /// No line makes the reader panic: each is served, answered or ignored.
        #[test]
        fn any_line_is_decoded_without_a_panic(line in proptest::collection::vec(
            prop_oneof![Just(b'\\'), Just(b'"'), Just(b'{'), Just(b'['), Just(b'u'),
                        any::<u8>()], 0..40)
        ) {
            let _ = decode(&line);
            let _ = leading_id(&line);
        }

        /// Any sequence of UTF-16 units, escaped, reads as a UTF-16 decoder would read it
        /// leniently.
        #[test]
        fn escaped_utf16_reads_as_lossy_utf16(units in proptest::collection::vec(
            prop_oneof![0xD7F0u16..0xE010, any::<u16>()], 0..12)
        ) {
            let escaped: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
            let json = format!("\"{escaped}\"");
            let text = without_lone_surrogates(&json).unwrap_or(json);
            let read: String = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(read, String::from_utf16_lossy(&units));
        }
    }
}
