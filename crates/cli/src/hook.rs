//! Reading the task from an agent's hook: `oro-mem inject --hook claude`.
//!
//! Claude Code runs a hook command with one JSON object on standard input and, for
//! `UserPromptSubmit` and `SessionStart`, adds what the command prints (exit status 0) to the
//! model's context. The task is the prompt, or, when a session starts (or resumes, or was
//! cleared or compacted), the last user message of its transcript: what the work is about.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// How much of a transcript's end is read for its last user message, in bytes: a transcript
/// grows for the whole session, and only its end matters.
const TRANSCRIPT_TAIL_BYTES: u64 = 4 << 20;

/// The fields of Claude Code's hook input that `inject` reads; the rest are ignored.
#[derive(Debug, Deserialize)]
struct ClaudeInput {
    hook_event_name: String,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    transcript_path: Option<String>,
}

/// The task of a Claude Code hook input read from `input`; `None` when it has none (a new
/// session with an empty transcript).
///
/// # Errors
///
/// When the input is not a hook's JSON object, names another event, or a `UserPromptSubmit`
/// has no prompt.
pub fn claude_task(input: &mut dyn Read) -> Result<Option<String>> {
    let text = crate::input::read_text(input, "the hook's input")?;
    let hook: ClaudeInput = serde_json::from_str(&text).context(
        "the hook's input is not Claude Code hook JSON (an object with hook_event_name)",
    )?;
    match hook.hook_event_name.as_str() {
        "UserPromptSubmit" => match hook.prompt {
            Some(p) => Ok(Some(p)),
            None => bail!("a UserPromptSubmit hook input without a prompt"),
        },
        "SessionStart" => match hook.transcript_path {
            Some(path) => last_user_message(Path::new(&path)),
            None => Ok(None),
        },
        other => bail!(
            "inject --hook claude reads UserPromptSubmit and SessionStart hooks, not {other:?}"
        ),
    }
}

/// The text of the last user message of a Claude Code transcript (JSON lines with
/// `"type": "user"` and a `message.content` that is a string or a list of blocks, of which
/// the `text` ones count), read from the transcript's last [`TRANSCRIPT_TAIL_BYTES`]. A
/// missing file, or one without such a message there, has none; lines that are not JSON are
/// skipped, as a transcript being written may end in half a line (and the tail may start in
/// one).
///
/// # Errors
///
/// When `path` is not a regular file (a FIFO, a device such as `/dev/zero`, a directory),
/// which would block the reader or never end: it is not opened for reading.
fn last_user_message(path: &Path) -> Result<Option<String>> {
    let cannot = || format!("cannot read {}", path.display());
    let mut file = match open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(cannot),
    };
    let len = file.metadata().with_context(cannot)?.len();
    let start = len.saturating_sub(TRANSCRIPT_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).with_context(cannot)?;
    let mut last = None;
    let mut lines = BufReader::new(file.take(len - start)).split(b'\n');
    if start > 0 {
        // The tail starts inside a line: not a whole entry.
        lines.next();
    }
    for line in lines {
        let line = crate::input::lossy(line.with_context(cannot)?);
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if entry["type"] != "user" {
            continue;
        }
        let text = match &entry["message"]["content"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(blocks) => blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => continue,
        };
        if !text.trim().is_empty() {
            last = Some(text);
        }
    }
    Ok(last)
}

/// `path` opened for reading if it is a regular file; anything else is refused without
/// blocking (opening a FIFO with no writer would wait for one).
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(json: &str) -> Result<Option<String>> {
        claude_task(&mut json.as_bytes())
    }

    #[test]
    fn a_prompt_is_the_task() {
        let input = r#"{"session_id": "abc", "transcript_path": "/nowhere.jsonl",
            "cwd": "/repo", "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit", "prompt": "fix the flaky upload test"}"#;
        assert_eq!(
            task(input).unwrap().as_deref(),
            Some("fix the flaky upload test")
        );
    }

    #[test]
    fn a_session_start_takes_the_last_user_message_of_its_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("s.jsonl");
        std::fs::write(
            &transcript,
            concat!(
                r#"{"type":"user","message":{"role":"user","content":"set up linting"}}"#,
                "\n",
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
                "\n",
                r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}"#,
                "\n",
                r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"now make pyright pass"}]}}"#,
                "\n",
                r#"{"type":"user","mess"#,
            ),
        )
        .unwrap();
        let input = serde_json::json!({
            "session_id": "abc", "hook_event_name": "SessionStart", "source": "resume",
            "transcript_path": transcript,
        })
        .to_string();
        assert_eq!(
            task(&input).unwrap().as_deref(),
            Some("now make pyright pass")
        );
        let fresh = serde_json::json!({
            "hook_event_name": "SessionStart", "source": "startup",
            "transcript_path": dir.path().join("new.jsonl"),
        })
        .to_string();
        assert_eq!(task(&fresh).unwrap(), None);
    }

    fn session_start(transcript: &Path) -> Result<Option<String>> {
        let input = serde_json::json!({
            "hook_event_name": "SessionStart", "transcript_path": transcript,
        });
        task(&input.to_string())
    }

    /// `/dev/zero` never ends and a FIFO without a writer blocks whoever opens it: neither is
    /// read. A transcript larger than the tail is read from its end.
    #[test]
    fn only_the_end_of_a_regular_transcript_is_read() {
        let err = session_start(Path::new("/dev/zero")).unwrap_err();
        assert!(format!("{err:#}").contains("not a regular file"), "{err:#}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let err = session_start(&fifo).unwrap_err();
        assert!(format!("{err:#}").contains("not a regular file"), "{err:#}");

        let line = |text: &str| {
            format!(r#"{{"type":"user","message":{{"role":"user","content":"{text}"}}}}"#) + "\n"
        };
        let filler = r#"{"type":"assistant","message":{"content":"..."}}"#.to_string() + "\n";
        let mut big = line("the first task, long gone");
        while (big.len() as u64) < 2 * TRANSCRIPT_TAIL_BYTES {
            big.push_str(&filler);
        }
        big.push_str(&line("the task at hand"));
        let transcript = dir.path().join("big.jsonl");
        std::fs::write(&transcript, &big).unwrap();
        assert_eq!(
            session_start(&transcript).unwrap().as_deref(),
            Some("the task at hand")
        );
        // Only filler in the tail: nothing to go on, not the first task.
        big.truncate(big.len() - line("the task at hand").len());
        std::fs::write(&transcript, &big).unwrap();
        assert_eq!(session_start(&transcript).unwrap(), None);
    }

    #[test]
    fn a_prompt_that_is_not_utf8_is_read_and_one_too_large_is_refused() {
        let mut input = br#"{"hook_event_name":"UserPromptSubmit","prompt":"caf"#.to_vec();
        input.extend_from_slice(b"\xE9 menu\"}");
        assert_eq!(
            claude_task(&mut &input[..]).unwrap().as_deref(),
            Some("caf\u{FFFD} menu")
        );
        let mut big = br#"{"hook_event_name":"UserPromptSubmit","prompt":""#.to_vec();
        big.resize(crate::input::MAX_INPUT_BYTES + 10, b'a');
        big.extend_from_slice(b"\"}");
        let err = claude_task(&mut &big[..]).unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
    }

    #[test]
    fn other_input_is_a_clear_error() {
        let err = task("not json").unwrap_err().to_string();
        assert!(err.contains("not Claude Code hook JSON"), "{err}");
        let err = task(r#"{"hook_event_name": "PreToolUse"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not \"PreToolUse\""), "{err}");
        let err = task(r#"{"hook_event_name": "UserPromptSubmit"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("without a prompt"), "{err}");
    }
}
