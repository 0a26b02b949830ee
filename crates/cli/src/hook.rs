//! Reading the task from an agent's hook: `oro-mem inject --hook claude`.
//!
//! Claude Code runs a hook command with one JSON object on standard input and, for
//! `UserPromptSubmit` and `SessionStart`, adds what the command prints (exit status 0) to the
//! model's context. The task is the prompt, or, when a session starts (or resumes, or was
//! cleared or compacted), the last user message of its transcript: what the work is about.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// The largest hook input read, in bytes.
const MAX_INPUT_BYTES: u64 = 16 << 20;

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
    let mut text = String::new();
    input
        .take(MAX_INPUT_BYTES)
        .read_to_string(&mut text)
        .context("cannot read the hook's input")?;
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
/// the `text` ones count). A missing file, or one without such a message, has none; lines
/// that are not JSON are skipped, as a transcript being written may end in half a line.
fn last_user_message(path: &Path) -> Result<Option<String>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut last = None;
    for line in BufReader::new(file).lines() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
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
