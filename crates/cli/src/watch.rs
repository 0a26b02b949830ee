//! `oro-mem watch`: follows agents' session logs and extracts memories from each session
//! once it is complete, by the rules of `oro-mem extract`, never reading the same part twice.
//!
//! A session log is a JSON-lines transcript (`*.jsonl`: Claude Code's
//! `~/.claude/projects/<project>/<session>.jsonl`, whose assistant messages are read) or a
//! plain-text log (`*.log`, `*.txt`, read whole). A session is complete once its file has
//! not changed for `--idle` seconds. What was read of each file (up to the end of its last
//! complete line) is kept in a state file beside the store, replaced atomically after the
//! memories are stored: after a restart, a log is read on from where it was left, and a log
//! that grew (a session resumed) gives only its new part. A crash between storing and saving
//! the state reads that part again, and the write path's duplicate check finds each memory
//! already stored.
//!
//! Logs are known by their file (device and inode) as well as their path: a log rotated as
//! logrotate does (`app.log` renamed `app.log.1`, which is read as the log it was, and a new
//! `app.log` begun) is finished from where it was left and not read again under its new name.
//! A copy (logrotate's `copytruncate`) is another file, and is read whole.
//!
//! Changes are noticed through the operating system's file events (the `notify` crate:
//! inotify on Linux, FSEvents on macOS), not by polling the directories.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};

use crate::extract::{extract as find_memories, Extraction};
use anyhow::{bail, Context, Result};
use notify::{RecursiveMode, Watcher};
use oro_mem_core::{NewMemory, Source};
use serde::{Deserialize, Serialize};

use crate::args::WatchArgs;
use crate::capture::Tally;
use crate::remember::dedup_config;
use crate::Ctx;

/// The most of a log read at once; a larger remainder is read in several steps.
const MAX_READ_BYTES: u64 = 64 << 20;

/// How often the pending logs are checked for being complete.
const TICK: Duration = Duration::from_millis(500);

/// The state file's format version.
const STATE_VERSION: u32 = 1;

/// What kind of log a file is, by its extension; `None` for files that are not logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// JSON lines, one transcript entry each.
    Transcript,
    /// Plain text.
    Text,
}

impl Kind {
    /// The kind of the log at `path`, by its extension; a rotated copy (`app.log.1`, as
    /// logrotate names them) is the kind of the log it was.
    fn of(path: &Path) -> Option<Kind> {
        match log_name(path)?.extension()?.to_str()? {
            "jsonl" => Some(Kind::Transcript),
            "log" | "txt" => Some(Kind::Text),
            _ => None,
        }
    }
}

/// The name of the log at `path`: its file name without a rotation number (`app.log.1` is
/// `app.log`).
fn log_name(path: &Path) -> Option<&Path> {
    let name = Path::new(path.file_name()?);
    let rotated = name
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()));
    Some(if rotated {
        Path::new(name.file_stem()?)
    } else {
        name
    })
}

/// What was read of one log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    /// The file's device and inode when it was read: another file at the same path (a log
    /// rotated or rewritten) is read from its start.
    dev: u64,
    ino: u64,
    /// Bytes read: the end of the last complete line.
    offset: u64,
}

/// A file, as its device and inode.
type FileId = (u64, u64);

impl Seen {
    /// The file read.
    fn file(&self) -> FileId {
        (self.dev, self.ino)
    }
}

/// The file `meta` describes.
fn file_id(meta: &std::fs::Metadata) -> FileId {
    (meta.dev(), meta.ino())
}

/// Every log read so far, by absolute path.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    version: u32,
    files: BTreeMap<PathBuf, Seen>,
}

impl State {
    /// The state at `path`; none yet when the file does not exist.
    fn load(path: &Path) -> Result<State> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let state: State = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not oro-mem watch's state; move it away to read every log again",
                path.display()
            )
        })?;
        if state.version != STATE_VERSION {
            bail!(
                "{} was written by another version of oro-mem watch (format {}, expected {})",
                path.display(),
                state.version,
                STATE_VERSION
            );
        }
        Ok(state)
    }

    /// Replaces the state at `path` whole: written beside it, flushed, then renamed over it.
    fn save(&mut self, path: &Path) -> Result<()> {
        self.version = STATE_VERSION;
        let mut tmp = path.as_os_str().to_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let write = || -> std::io::Result<()> {
            let mut f = crate::private::create_file(&tmp)?;
            f.write_all(serde_json::to_string_pretty(self)?.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().with_context(|| format!("cannot write {}", path.display()))
    }

    /// Records what was read of the file at `path`. What was read of another file under that
    /// name before (a log rotated away) moves with it, to the name it now has in the same
    /// directory; it is forgotten only when that file is gone.
    fn record(&mut self, path: PathBuf, seen: Seen) {
        self.record_within(path, seen, 8);
    }

    /// [`State::record`], following at most `moves` renames (two logs that swapped names
    /// would otherwise move each other's records forever).
    fn record_within(&mut self, path: PathBuf, seen: Seen, moves: u32) {
        if let Some(before) = self.files.get(&path).copied().filter(|_| moves > 0) {
            if before.file() != seen.file() {
                if let Some(moved) = moved_to(&path, before) {
                    let kept = self
                        .files
                        .get(&moved)
                        .filter(|s| s.file() == before.file())
                        .map_or(0, |s| s.offset);
                    if kept < before.offset {
                        // Recorded under the new name too, at its most.
                        self.record_within(moved, before, moves - 1);
                    }
                }
            }
        }
        self.files.insert(path, seen);
    }

    /// What was read of the file with this device and inode, under any of its names: the
    /// most of it.
    fn read_of(&self, file: FileId) -> Option<Seen> {
        self.files
            .values()
            .filter(|s| s.file() == file)
            .max_by_key(|s| s.offset)
            .copied()
    }
}

/// What one log gave.
#[derive(Debug, Default)]
struct NewPart {
    /// The session's id: a transcript's `sessionId`, else the file's name without extension.
    session: String,
    /// The text the memories are found in.
    text: String,
    /// Where the next read starts.
    offset: u64,
}

/// Reads what is new in the log at `path` since `seen`: up to the end of its last complete
/// line, or, for a plain-text log (complete, since it is idle), to its end. `None` when
/// nothing is new.
fn read_new(path: &Path, kind: Kind, seen: Option<Seen>) -> Result<Option<(NewPart, Seen)>> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    let same_file = seen.filter(|s| s.file() == file_id(&meta));
    // A file shorter than what was read of it was rewritten: read it from its start.
    let start = same_file
        .map(|s| s.offset)
        .filter(|&o| o <= meta.len())
        .unwrap_or(0);
    if start == meta.len() {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(start))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let complete = match (kind, bytes.iter().rposition(|&b| b == b'\n')) {
        (Kind::Text, _) if bytes.len() as u64 == meta.len() - start => bytes.len(),
        (_, Some(newline)) => newline + 1,
        (_, None) => return Ok(None),
    };
    bytes.truncate(complete);
    let text = String::from_utf8_lossy(&bytes);
    let stem = log_name(path)
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let read = match kind {
        Kind::Text => NewPart {
            session: stem,
            text: text.into_owned(),
            offset: start + complete as u64,
        },
        Kind::Transcript => {
            let (session, text) = assistant_text(&text);
            NewPart {
                session: session.unwrap_or(stem),
                text,
                offset: start + complete as u64,
            }
        }
    };
    let seen = Seen {
        dev: meta.dev(),
        ino: meta.ino(),
        offset: read.offset,
    };
    Ok(Some((read, seen)))
}

/// The text of a transcript's assistant messages (a string `message.content`, or its `text`
/// blocks; tool calls and results are not the agent's words), one message after another,
/// and the first `sessionId` it names. Lines that are not JSON objects are skipped.
fn assistant_text(jsonl: &str) -> (Option<String>, String) {
    let mut session = None;
    let mut out = String::new();
    for line in jsonl.lines() {
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if session.is_none() {
            session = entry["sessionId"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string);
        }
        if entry["type"] != "assistant" {
            continue;
        }
        match &entry["message"]["content"] {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(blocks) => {
                for text in blocks
                    .iter()
                    .filter(|b| b["type"] == "text")
                    .filter_map(|b| b["text"].as_str())
                {
                    out.push_str(text);
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
    (session, out)
}

/// Every log under `dir`, recursively (symbolic links are not followed).
fn logs_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let kind = entry
            .file_type()
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        if kind.is_dir() {
            logs_under(&entry.path(), out)?;
        } else if kind.is_file() && Kind::of(&entry.path()).is_some() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// True when the file at `path` has not changed for `idle` (a file that is gone is not).
fn is_idle(path: &Path, idle: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| SystemTime::now().duration_since(t).unwrap_or_default() >= idle)
}

/// `oro-mem watch`, its state in `state_path`.
pub fn watch(ctx: &mut Ctx, a: &WatchArgs, state_path: &Path) -> Result<()> {
    let mut dirs = Vec::with_capacity(a.dirs.len());
    for d in &a.dirs {
        let abs = std::fs::canonicalize(d)
            .with_context(|| format!("cannot watch {}: no such directory", d.display()))?;
        if !abs.is_dir() {
            bail!("cannot watch {}: not a directory", d.display());
        }
        dirs.push(abs);
    }
    let mut state = State::load(state_path)?;
    let mut pending: Vec<PathBuf> = Vec::new();
    for d in &dirs {
        logs_under(d, &mut pending)?;
    }
    pending.sort();
    if a.once {
        read_once(ctx, a, &mut state, state_path, &pending)
    } else {
        follow(ctx, a, &mut state, state_path, &dirs, pending)
    }
}

/// `watch --once`: reads the logs of `pending` that are complete, and says how many are not.
fn read_once(
    ctx: &mut Ctx,
    a: &WatchArgs,
    state: &mut State,
    state_path: &Path,
    pending: &[PathBuf],
) -> Result<()> {
    let idle = Duration::from_secs(a.idle);
    let (ready, busy): (Vec<&PathBuf>, Vec<&PathBuf>) =
        pending.iter().partition(|p| is_idle(p, idle));
    for path in ready {
        process(ctx, a, state, state_path, path)?;
    }
    if !busy.is_empty() {
        errln!(
            "oro-mem: watch: {} log{} changed in the last {} s, left for a later run \
             (--idle)",
            busy.len(),
            if busy.len() == 1 { "" } else { "s" },
            a.idle
        );
    }
    Ok(())
}

/// Follows `dirs` through the system's file events until Ctrl-C or SIGTERM, reading each log
/// (the `pending` ones first) once it is complete.
fn follow(
    ctx: &mut Ctx,
    a: &WatchArgs,
    state: &mut State,
    state_path: &Path,
    dirs: &[PathBuf],
    pending: Vec<PathBuf>,
) -> Result<()> {
    let idle = Duration::from_secs(a.idle);
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("cannot handle SIGINT and SIGTERM")?;
    }
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })
    .context("cannot watch for file changes")?;
    for d in dirs {
        watcher
            .watch(d, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", d.display()))?;
    }
    errln!(
        "oro-mem: watching {} for session logs (complete after {} s without a change; \
         Ctrl-C stops)",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        a.idle
    );
    let mut pending: HashSet<PathBuf> = pending.into_iter().collect();
    while !stop.load(Ordering::SeqCst) {
        match rx.recv_timeout(TICK) {
            Ok(Ok(event)) => {
                for path in event.paths {
                    if Kind::of(&path).is_some() {
                        pending.insert(path);
                    }
                }
            }
            Ok(Err(e)) => errln!("oro-mem: watch: {e}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("the file watcher stopped"),
        }
        let mut ready: Vec<PathBuf> = pending
            .iter()
            .filter(|p| !p.exists() || is_idle(p, idle))
            .cloned()
            .collect();
        ready.sort();
        for path in ready {
            pending.remove(&path);
            if path.is_file() {
                // One log that cannot be read stops nothing else.
                if let Err(e) = process(ctx, a, state, state_path, &path) {
                    errln!("oro-mem: watch: {}: {e:#}", path.display());
                }
            }
        }
    }
    Ok(())
}

/// Extracts and stores what is new in the log at `path`, then records it in the state.
///
/// Logs are known by their file (device and inode), not only their path, so that rotation
/// loses and repeats nothing: when the path now names another file than the one read there
/// (`app.log` moved to `app.log.1` and a new `app.log` begun), the one read is first finished
/// from where it was left, wherever in its directory it now is; and a file read under
/// another name (the rotated copy, found later) is read on from there, not from its start.
fn process(
    ctx: &mut Ctx,
    a: &WatchArgs,
    state: &mut State,
    state_path: &Path,
    path: &Path,
) -> Result<()> {
    let Some(kind) = Kind::of(path) else {
        return Ok(());
    };
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let file = std::fs::metadata(&key)
        .map(|m| file_id(&m))
        .with_context(|| format!("cannot read {}", path.display()))?;
    if let Some(before) = state.files.get(&key).copied() {
        if before.file() != file {
            if let Some(moved) = moved_to(&key, before) {
                let seen = state.read_of(before.file());
                process_one(ctx, a, state, state_path, &moved, kind, seen)?;
            }
        }
    }
    let seen = state.read_of(file);
    process_one(ctx, a, state, state_path, &key, kind, seen)
}

/// Where the file `seen` was read as `path` is now: another file of the same directory with
/// its device and inode (a rotated log), if there is one.
fn moved_to(path: &Path, seen: Seen) -> Option<PathBuf> {
    let dir = path.parent()?;
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p != path
                && std::fs::symlink_metadata(p)
                    .is_ok_and(|m| m.is_file() && file_id(&m) == seen.file())
        })
}

/// [`process`] for one file, `seen` what was read of it (under whatever name).
fn process_one(
    ctx: &mut Ctx,
    a: &WatchArgs,
    state: &mut State,
    state_path: &Path,
    path: &Path,
    kind: Kind,
    seen: Option<Seen>,
) -> Result<()> {
    let key = path.to_path_buf();
    let Some((read, seen)) = read_new(path, kind, seen)? else {
        if let Some(seen) = seen.filter(|s| state.files.get(&key) != Some(s)) {
            // Nothing new, but known under this name from now on.
            state.record(key, seen);
            state.save(state_path)?;
        }
        return Ok(());
    };
    let Extraction { memories, rejected } = find_memories(&read.text);
    for r in &rejected {
        errln!(
            "oro-mem: watch: {}: [MEMORY] not stored: {}",
            path.display(),
            r.reason
        );
    }
    let mut batch: Vec<(NewMemory, Option<_>)> = Vec::with_capacity(memories.len());
    for found in memories {
        let mut m = found.memory.source(Source::DaemonExtracted);
        m.namespace = a.namespace.clone();
        m.tags.extend(a.tags.iter().cloned());
        m.worker_id = a.worker_id.clone();
        m.session = Some(read.session.clone());
        // A memory that does not validate (too long, say) is reported, not stored; the rest
        // of the session is.
        match m.validate() {
            Ok(()) => batch.push((m, None)),
            Err(e) => errln!("oro-mem: watch: {}: not stored: {e}", path.display()),
        }
    }
    let mut tally = Tally::default();
    if !batch.is_empty() {
        let dedup = dedup_config(ctx.engine.config(), false);
        ctx.remember(batch, &dedup, &mut std::io::stderr())?
            .outcomes
            .iter()
            .for_each(|o| tally.add(o));
    }
    state.record(key, seen);
    state.save(state_path)?;
    outln!(
        "{}: session {}: stored {}, merged {}, skipped {}, rejected {}",
        path.display(),
        read.session,
        tally.stored,
        tally.merged,
        tally.skipped,
        rejected.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_gives_its_assistant_text_and_session() {
        let jsonl = concat!(
            r#"{"type":"user","sessionId":"s-1","message":{"role":"user","content":"[MEMORY] not the agent's"}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"s-1","message":{"role":"assistant","content":[{"type":"text","text":"Done.\n[MEMORY] a"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"[MEMORY] no"}}]}}"#,
            "\n",
            "not json\n",
            r#"{"type":"assistant","message":{"content":"I learned that b matters here."}}"#,
            "\n",
        );
        let (session, text) = assistant_text(jsonl);
        assert_eq!(session.as_deref(), Some("s-1"));
        assert_eq!(text, "Done.\n[MEMORY] a\nI learned that b matters here.\n");
    }

    #[test]
    fn a_rotated_copy_is_the_kind_of_log_it_was() {
        for (name, kind) in [
            ("app.log", Some(Kind::Text)),
            ("app.log.1", Some(Kind::Text)),
            ("notes.txt.12", Some(Kind::Text)),
            ("s.jsonl.2", Some(Kind::Transcript)),
            ("app.log.gz", None),
            ("app.1", None),
            ("app.log.", None),
        ] {
            assert_eq!(Kind::of(Path::new(name)), kind, "{name}");
        }
        assert_eq!(
            log_name(Path::new("/x/app.log.3")),
            Some(Path::new("app.log"))
        );
    }

    /// Two logs that swapped names move each other's records a bounded number of times.
    #[test]
    fn records_follow_renames_and_two_swapped_logs_end() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.log"), dir.path().join("b.log"));
        std::fs::write(&a, "a\n").unwrap();
        std::fs::write(&b, "b\n").unwrap();
        let id = |p: &Path| {
            let m = std::fs::metadata(p).unwrap();
            (m.dev(), m.ino())
        };
        let seen = |p: &Path, offset| Seen {
            dev: id(p).0,
            ino: id(p).1,
            offset,
        };
        let mut state = State::default();
        state.record(a.clone(), seen(&a, 2));
        state.record(b.clone(), seen(&b, 2));
        let tmp = dir.path().join("tmp");
        std::fs::rename(&a, &tmp).unwrap();
        std::fs::rename(&b, &a).unwrap();
        std::fs::rename(&tmp, &b).unwrap();
        state.record(a.clone(), seen(&a, 2));
        assert_eq!(state.read_of(id(&a)).map(|s| s.offset), Some(2));
        assert_eq!(state.read_of(id(&b)).map(|s| s.offset), Some(2));
    }

    #[test]
    fn only_complete_lines_are_read_and_a_rewritten_file_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        let (read, seen) = read_new(&path, Kind::Transcript, None).unwrap().unwrap();
        assert_eq!(read.offset, 8);
        assert_eq!(seen.offset, 8);
        // Nothing new until the line is complete.
        assert!(read_new(&path, Kind::Transcript, Some(seen))
            .unwrap()
            .is_none());
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let (read, again) = read_new(&path, Kind::Transcript, Some(seen))
            .unwrap()
            .unwrap();
        assert_eq!((read.offset, again.offset), (16, 16));
        // Replaced by a shorter file: read from the start.
        std::fs::write(&path, "{}\n").unwrap();
        let (read, _) = read_new(&path, Kind::Transcript, Some(again))
            .unwrap()
            .unwrap();
        assert_eq!(read.offset, 3);
        // A plain-text log is read to its end.
        let log = dir.path().join("run.log");
        std::fs::write(&log, "line one\nI learned that logs end without a newline").unwrap();
        let (read, _) = read_new(&log, Kind::Text, None).unwrap().unwrap();
        assert_eq!(read.session, "run");
        assert!(read.text.ends_with("without a newline"));
    }
}
