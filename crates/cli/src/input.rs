//! Reading standard input: bounded, and lenient about its encoding where the text is only
//! read (a query, a prompt), strict where it is stored (a memory).

use std::io::Read;

use anyhow::{bail, Context, Result};

/// The most bytes read from standard input for one text (a query, a task, a memory, a hook's
/// JSON): 16 MiB.
pub const MAX_INPUT_BYTES: usize = 16 << 20;

/// What `input` holds, up to [`MAX_INPUT_BYTES`] (`what` names it in errors). Bytes that are
/// not UTF-8 are read as U+FFFD, as the MCP server reads them: a prompt with a stray byte is
/// still a prompt.
///
/// # Errors
///
/// When `input` fails, or holds more than [`MAX_INPUT_BYTES`].
pub fn read_text(input: &mut dyn Read, what: &str) -> Result<String> {
    read_within(input, what).map(lossy)
}

/// What `input` holds, up to [`MAX_INPUT_BYTES`], as [`read_text`] reads it but refusing
/// bytes that are not UTF-8: for text that is stored (a memory), where a byte read as U+FFFD
/// would be kept for good.
///
/// # Errors
///
/// As [`read_text`], and when `input` is not UTF-8 (the error says at which byte).
pub fn read_utf8(input: &mut dyn Read, what: &str) -> Result<String> {
    utf8(read_within(input, what)?, what)
}

/// What `input` holds, or an error when it fails or holds more than [`MAX_INPUT_BYTES`].
fn read_within(input: &mut dyn Read, what: &str) -> Result<Vec<u8>> {
    let bytes = read_bounded(input).with_context(|| format!("cannot read {what}"))?;
    if bytes.len() > MAX_INPUT_BYTES {
        bail!(
            "{what} is too large: more than {} MiB",
            MAX_INPUT_BYTES >> 20
        );
    }
    Ok(bytes)
}

/// `bytes` as text, or an error that says at which byte `what` is not UTF-8.
///
/// # Errors
///
/// When `bytes` are not UTF-8.
pub fn utf8(bytes: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let byte = e.as_bytes()[at];
        anyhow::anyhow!(
            "{what} is not UTF-8: byte {byte:#04x} at offset {at} (convert it first, say with \
             `iconv -f latin1 -t utf-8`)"
        )
    })
}

/// What `input` holds, up to one byte past [`MAX_INPUT_BYTES`]: longer than the limit means
/// too large, and nothing past that is read.
pub fn read_bounded(input: &mut dyn Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `bytes` as text, each sequence that is not UTF-8 read as U+FFFD.
pub fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_read_whole_leniently_and_refused_past_the_limit() {
        assert_eq!(
            read_text(&mut &b"caf\xE9 ok"[..], "x").unwrap(),
            "caf\u{FFFD} ok"
        );
        let most = vec![b'a'; MAX_INPUT_BYTES];
        assert_eq!(
            read_text(&mut &most[..], "x").unwrap().len(),
            MAX_INPUT_BYTES
        );
        let over = vec![b'a'; MAX_INPUT_BYTES + 1];
        let e = read_text(&mut &over[..], "the prompt").unwrap_err();
        assert_eq!(e.to_string(), "the prompt is too large: more than 16 MiB");
    }

    #[test]
    fn stored_text_must_be_utf8() {
        assert_eq!(
            read_utf8(&mut &"café"[..].as_bytes()[..], "x").unwrap(),
            "café"
        );
        let e = read_utf8(&mut &b"caf\xE9 ok"[..], "standard input").unwrap_err();
        assert_eq!(
            e.to_string(),
            "standard input is not UTF-8: byte 0xe9 at offset 3 (convert it first, say with \
             `iconv -f latin1 -t utf-8`)"
        );
    }
}
