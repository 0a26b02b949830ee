//! Finding memories in what an agent wrote.
//!
//! Two kinds of evidence, in order of trust:
//!
//! 1. **Markers**, one per line: `[MEMORY] type=gotcha: ruff --fix must run before pyright`.
//!    Optional `key=value` attributes (`type`; `tags`, `files` and `entities`
//!    comma-separated; `confidence`), separated by spaces (a comma or semicolon after one is
//!    read as a separator too), end with a colon; without attributes the colon is optional and
//!    the type is `lesson`. A word before `=` that names no attribute and is not in lower case
//!    starts the content (`` `RUST_LOG=debug cargo test` shows … ``). The marker may follow
//!    list bullets, a list's number (`1. [MEMORY] …`) or a quote sign, and is matched
//!    case-insensitively; a second marker after the end of a sentence on a marker's line
//!    starts another memory. Source `self_report`. A marker that cannot be read (unknown type
//!    or attribute, a bad confidence, no content) is rejected with the reason, and never
//!    guessed at.
//! 2. **Phrases**, on the lines without a marker: the sentence after "I learned",
//!    "Note:", "Important:", "Gotcha:" or "Pattern:" (type gotcha for "Gotcha:", pattern for
//!    "Pattern:", lesson otherwise), at least three words, outside fenced code blocks. Source
//!    `daemon_extracted`, confidence [`PHRASE_CONFIDENCE`]. A phrase that says what a marker
//!    says is left to the write path's duplicate check, which keeps the marker's.
//!
//! `oro-mem capture` and `oro-mem watch` read an agent's output through [`extract`] (the
//! test `a_marker_is_found_on_its_line` shows one).

use oro_mem_core::memory::validate_confidence;
use oro_mem_core::{MemoryType, NewMemory, Source};

/// Confidence of memories found by phrase rather than by marker.
pub const PHRASE_CONFIDENCE: f64 = 0.5;

/// Phrases that introduce something worth keeping, lowercase, and the type they imply.
const PHRASES: &[(&str, MemoryType)] = &[
    ("i learned", MemoryType::Lesson),
    ("note:", MemoryType::Lesson),
    ("important:", MemoryType::Lesson),
    ("gotcha:", MemoryType::Gotcha),
    ("pattern:", MemoryType::Pattern),
    ("fact:", MemoryType::Fact),
];

const MARKER: &str = "[memory]";

/// A memory found in the text.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Line number, from 1.
    pub line: usize,
    /// The memory, validated.
    pub memory: NewMemory,
}

/// A marker that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// Line number, from 1.
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

/// What [`extract`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extraction {
    /// Memories, in text order.
    pub memories: Vec<Found>,
    /// Markers that could not be read, in text order.
    pub rejected: Vec<Rejected>,
}

/// Finds the memories in `text` (see the [module docs](self)).
pub fn extract(text: &str) -> Extraction {
    let mut out = Extraction::default();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = after_marker(line) else {
            continue;
        };
        // One fact per marker, if a line holds more than one.
        for rest in markers(rest) {
            match parse_marker(rest) {
                Ok(memory) => out.memories.push(Found {
                    line: i + 1,
                    memory,
                }),
                Err(reason) => out.rejected.push(Rejected {
                    line: i + 1,
                    reason,
                }),
            }
        }
    }
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || after_marker(line).is_some() {
            continue;
        }
        for (content, memory_type) in phrases(line) {
            let mut m = NewMemory::new(content, memory_type)
                .source(Source::DaemonExtracted)
                .confidence(PHRASE_CONFIDENCE);
            if m.validate().is_ok() {
                out.memories.push(Found {
                    line: i + 1,
                    memory: m,
                });
            }
        }
    }
    out
}

/// `rest`, the text after a line's marker, cut before each further marker that follows the
/// end of a sentence (`[MEMORY] a. [MEMORY] b.`): the text of each, in order. A marker
/// inside a sentence is its content (`[MEMORY] Lines that start with [MEMORY] are stored`).
fn markers(rest: &str) -> Vec<&str> {
    // The marker is ASCII: ASCII lowercasing keeps every byte where it was.
    let lower = rest.to_ascii_lowercase();
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(at) = lower[from..].find(MARKER).map(|at| from + at) {
        from = at + MARKER.len();
        let before = rest[start..at].trim_end_matches(['*', '_']);
        if before.trim_end().ends_with(['.', '!', '?', ';']) {
            out.push(before);
            start = from + rest[from..].len() - rest[from..].trim_start_matches(['*', '_']).len();
        }
    }
    out.push(&rest[start..]);
    out
}

/// The text after a `[MEMORY]` marker that starts the line (after bullets, a list's number
/// or `>`), and after the emphasis that closes around it (`**[MEMORY]**`).
fn after_marker(line: &str) -> Option<&str> {
    let start = line.trim_start_matches(|c: char| c.is_whitespace() || "-*+>_".contains(c));
    // A numbered list's item: `1. [MEMORY] …`, `2) [MEMORY] …`.
    let numbered = start.trim_start_matches(|c: char| c.is_ascii_digit());
    let start = match numbered.strip_prefix(['.', ')']) {
        Some(after) if numbered.len() < start.len() => after.trim_start(),
        _ => start,
    };
    let head = start.get(..MARKER.len())?;
    head.eq_ignore_ascii_case(MARKER)
        .then(|| start[MARKER.len()..].trim_start_matches(['*', '_']))
}

/// The attributes of a `[MEMORY]` marker.
struct Attributes {
    memory_type: MemoryType,
    tags: Vec<String>,
    files: Vec<String>,
    entities: Vec<String>,
    confidence: Option<f64>,
}

impl Attributes {
    /// Reads attribute `key` (any case) with `value`.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key.to_ascii_lowercase().as_str() {
            "type" => {
                self.memory_type = value
                    .parse()
                    .map_err(|e: oro_mem_core::Error| e.to_string())?
            }
            key @ ("tags" | "files" | "entities") => {
                let list = match key {
                    "tags" => &mut self.tags,
                    "files" => &mut self.files,
                    _ => &mut self.entities,
                };
                list.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(String::from),
                );
            }
            "confidence" => {
                let c: f64 = value
                    .parse()
                    .map_err(|_| format!("confidence {value:?} is not a number"))?;
                validate_confidence(c).map_err(|e| e.to_string())?;
                self.confidence = Some(c);
            }
            other => {
                return Err(format!(
                    "unknown attribute {other:?} \
                     (expected type, tags, files, entities or confidence)"
                ))
            }
        }
        Ok(())
    }
}

/// Whether `key`, before an `=` at the start of a marker's text, names an attribute: one
/// of them in any case, or a word in lower case (a misspelt one, which is an error). Anything
/// else is the content's: a setting in a command (`` `RUST_LOG=debug cargo test` shows the
/// SQL ``, `NODE_ENV=test` …).
fn is_attribute_key(key: &str) -> bool {
    ["type", "confidence"]
        .iter()
        .chain(&LIST_KEYS)
        .any(|k| k.eq_ignore_ascii_case(key))
        || (!key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase()))
}

/// The attributes whose value is a comma-separated list.
const LIST_KEYS: [&str; 3] = ["tags", "files", "entities"];

/// The memory a `[MEMORY]` marker introduces, from the text after it: attributes
/// (`key=value`, ending with a colon), then the content.
fn parse_marker(rest: &str) -> Result<NewMemory, String> {
    let rest = rest.trim();
    let mut attributes = Attributes {
        memory_type: MemoryType::Lesson,
        tags: Vec::new(),
        files: Vec::new(),
        entities: Vec::new(),
        confidence: None,
    };
    let mut remaining = rest;
    let mut saw_attribute = false;
    let word_end = |text: &str, from: usize| {
        text[from..]
            .find(char::is_whitespace)
            .map_or(text.len(), |end| from + end)
    };
    loop {
        let mut token_end = word_end(remaining, 0);
        // A list goes on past a space after a comma: `tags=db, sqlite:`.
        let listed = remaining[..token_end]
            .split_once('=')
            .is_some_and(|(key, _)| LIST_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)));
        while listed && remaining[..token_end].ends_with(',') {
            let next = remaining.len() - remaining[token_end..].trim_start().len();
            let after = word_end(remaining, next);
            // Not past the end, nor into the next attribute (`tags=db, type=gotcha:`).
            let attribute = remaining[next..after]
                .split_once('=')
                .is_some_and(|(key, _)| is_attribute_key(key));
            if next == remaining.len() || attribute {
                break;
            }
            token_end = after;
        }
        let token = &remaining[..token_end];
        let Some((key, value)) = token
            .split_once('=')
            .filter(|(key, _)| is_attribute_key(key))
        else {
            break;
        };
        saw_attribute = true;
        let (value, last) = match value.strip_suffix(':') {
            Some(v) => (v, true),
            None => (value, false),
        };
        // Attributes separated by commas or semicolons too: `type=gotcha, tags=db:`.
        attributes.set(key, value.trim_end_matches([',', ';']))?;
        remaining = remaining[token_end..].trim_start();
        if last {
            break;
        }
        if let Some(after) = remaining.strip_prefix(':') {
            remaining = after;
            break;
        }
        if remaining.is_empty()
            || !remaining
                .split_whitespace()
                .next()
                .is_some_and(|t| t.contains('='))
        {
            return Err("expected ':' between the attributes and the content".into());
        }
    }
    let content = if saw_attribute {
        remaining.trim()
    } else {
        rest.strip_prefix(':').unwrap_or(rest).trim()
    };
    let Attributes {
        memory_type,
        tags,
        files,
        entities,
        confidence,
    } = attributes;
    let mut m = NewMemory::new(content, memory_type)
        .tags(tags)
        .files(files)
        .entities(entities)
        .source(Source::SelfReport);
    if let Some(c) = confidence {
        m = m.confidence(c);
    }
    m.validate().map_err(|e| e.to_string())?;
    Ok(m)
}

/// Sentences introduced by one of [`PHRASES`] in `line`, with their types.
fn phrases(line: &str) -> Vec<(String, MemoryType)> {
    // The phrases are ASCII: ASCII lowercasing keeps every byte where it was, so positions in
    // `lower` are positions in `line`.
    let lower = line.to_ascii_lowercase();
    let mut out = Vec::new();
    for &(phrase, memory_type) in PHRASES {
        let mut from = 0;
        while let Some(at) = lower[from..].find(phrase).map(|p| p + from) {
            from = at + phrase.len();
            // A whole word: not "keynote:" or "we learned".
            let word_start = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
            if !word_start {
                continue;
            }
            // Past the emphasis that closes around the phrase ("**Note:** …").
            let mut rest = line[from..].trim_start_matches(['*', '_']).trim_start();
            if phrase == "i learned" {
                rest = rest.trim_start_matches(':').trim_start();
                if rest.len() >= 5 && rest[..5].eq_ignore_ascii_case("that ") {
                    rest = &rest[5..];
                }
            }
            let sentence = first_sentence(rest);
            if sentence.split_whitespace().count() >= 3 {
                out.push((sentence.to_string(), memory_type));
            }
        }
    }
    out
}

/// `text` up to and including the first `.`, `!` or `?` that ends a sentence.
fn first_sentence(text: &str) -> &str {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace())
        {
            return text[..=i].trim();
        }
    }
    text.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_found_on_its_line() {
        let found = extract("Done.\n[MEMORY] type=gotcha: ruff --fix must run before pyright\n");
        assert_eq!(found.memories[0].memory.memory_type, MemoryType::Gotcha);
        assert_eq!(
            found.memories[0].memory.content,
            "ruff --fix must run before pyright"
        );
        assert_eq!(found.memories[0].line, 2);
    }

    fn contents(e: &Extraction) -> Vec<&str> {
        e.memories
            .iter()
            .map(|f| f.memory.content.as_str())
            .collect()
    }

    #[test]
    fn markers_with_attributes() {
        let e = extract(
            "Fixed the build.\n\
             - [MEMORY] type=gotcha tags=python,lint confidence=0.9: ruff --fix must run before pyright\n\
             [memory] Use WAL: readers never block\n\
             > [MEMORY]: plain lesson here\n",
        );
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        assert_eq!(
            contents(&e),
            [
                "ruff --fix must run before pyright",
                "Use WAL: readers never block",
                "plain lesson here"
            ]
        );
        let first = &e.memories[0].memory;
        assert_eq!(first.memory_type, MemoryType::Gotcha);
        assert_eq!(first.tags, ["python", "lint"]);
        assert_eq!(first.confidence, 0.9);
        assert_eq!(first.source, Source::SelfReport);
        assert_eq!(e.memories[1].memory.memory_type, MemoryType::Lesson);
        assert_eq!(
            e.memories.iter().map(|f| f.line).collect::<Vec<_>>(),
            [2, 3, 4]
        );
    }

    #[test]
    fn malformed_markers_are_rejected_with_a_reason() {
        let e = extract(
            "[MEMORY] type=bogus: x y z\n\
             [MEMORY] type=gotcha:\n\
             [MEMORY] colour=red: x\n\
             [MEMORY] confidence=2: too sure\n\
             [MEMORY] confidence=high: x\n\
             [MEMORY] type=gotcha no colon here\n\
             [MEMORY]\n\
             [MEMORY] type=pattern: fine one\n",
        );
        let reasons: Vec<(usize, &str)> = e
            .rejected
            .iter()
            .map(|r| (r.line, r.reason.as_str()))
            .collect();
        assert_eq!(reasons.len(), 7, "{reasons:?}");
        for (line, says) in [
            (1, "unknown memory type \"bogus\""),
            (2, "content is empty"),
            (3, "unknown attribute \"colour\""),
            (4, "between 0 and 1"),
            (5, "not a number"),
            (6, "expected ':'"),
            (7, "content is empty"),
        ] {
            let (_, reason) = reasons.iter().find(|(l, _)| *l == line).unwrap();
            assert!(reason.contains(says), "line {line}: {reason}");
        }
        assert_eq!(contents(&e), ["fine one"]);
    }

    #[test]
    fn an_emphasized_marker_leaves_its_emphasis_out_of_the_content() {
        let e = extract(
            "**[MEMORY]** The CI cache key must include Cargo.lock\n\
             - __[MEMORY]__ type=fact: The API listens on port 8080\n",
        );
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        assert_eq!(
            contents(&e),
            [
                "The CI cache key must include Cargo.lock",
                "The API listens on port 8080",
            ]
        );
    }

    #[test]
    fn an_emphasized_phrase_leaves_its_emphasis_out_of_the_sentence() {
        let e = extract("**Note:** the CI cache key must include Cargo.lock\n");
        assert_eq!(contents(&e), ["the CI cache key must include Cargo.lock"]);
    }

    #[test]
    fn attributes_may_be_separated_by_commas_and_lists_have_spaces_after_theirs() {
        let e = extract("[MEMORY] type=gotcha tags=db, sqlite: WAL mode needs a shared disk\n");
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        assert_eq!(contents(&e), ["WAL mode needs a shared disk"]);
        assert_eq!(e.memories[0].memory.tags, ["db", "sqlite"]);
        let e = extract(
            "[MEMORY] tags=db, type=gotcha: WAL mode needs a shared disk\n\
             [MEMORY] type=gotcha; confidence=0.9, tags=db: WAL mode needs fsync\n",
        );
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        for found in &e.memories {
            assert_eq!(found.memory.memory_type, MemoryType::Gotcha);
            assert_eq!(found.memory.tags, ["db"]);
        }
        assert_eq!(e.memories[1].memory.confidence, 0.9);
    }

    #[test]
    fn numbered_markers_and_markers_sharing_a_line_are_each_read() {
        let e = extract(
            "1. [MEMORY] Use WAL mode. **[MEMORY]** type=gotcha: VACUUM takes an exclusive lock\n\
             2) [MEMORY] type=fact: The API listens on port 8080\n",
        );
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        assert_eq!(
            contents(&e),
            [
                "Use WAL mode.",
                "VACUUM takes an exclusive lock",
                "The API listens on port 8080",
            ]
        );
        assert_eq!(e.memories[1].memory.memory_type, MemoryType::Gotcha);
        assert_eq!((e.memories[0].line, e.memories[2].line), (1, 2));
        // A marker named inside a sentence is what the memory says.
        let e = extract("[MEMORY] Lines that start with [MEMORY] are stored by extract\n");
        assert_eq!(
            contents(&e),
            ["Lines that start with [MEMORY] are stored by extract"]
        );
    }

    #[test]
    fn a_setting_at_the_start_of_the_content_is_no_attribute() {
        let e = extract(
            "[MEMORY] `RUST_LOG=debug cargo test` shows the SQL each test runs\n\
             [MEMORY] NODE_ENV=test is needed for the fixtures to load\n\
             [MEMORY] type=gotcha: `PGHOST=/tmp psql` reaches the test server\n",
        );
        assert!(e.rejected.is_empty(), "{:?}", e.rejected);
        assert_eq!(
            contents(&e),
            [
                "`RUST_LOG=debug cargo test` shows the SQL each test runs",
                "NODE_ENV=test is needed for the fixtures to load",
                "`PGHOST=/tmp psql` reaches the test server",
            ]
        );
    }

    #[test]
    fn phrases_are_found_beside_markers_and_indented_markers_are_read() {
        let text = "I learned that cargo caches builds in target. Then I moved on.\n\
                    Note: the CI cache key must include Cargo.lock! Otherwise stale.\n\
                    Gotcha: pyright ignores files outside the include list\n\
                    Keynote: not a phrase at all here\n\
                    Note: too short\n\
                    ```\n\
                    // Pattern: inside code is not a memory at all\n\
                    ```\n\
                    Pattern: small commits make bisecting cheap.";
        let e = extract(text);
        assert_eq!(
            contents(&e),
            [
                "cargo caches builds in target.",
                "the CI cache key must include Cargo.lock!",
                "pyright ignores files outside the include list",
                "small commits make bisecting cheap."
            ]
        );
        assert!(e
            .memories
            .iter()
            .all(|f| f.memory.source == Source::DaemonExtracted
                && f.memory.confidence == PHRASE_CONFIDENCE));
        let types: Vec<MemoryType> = e.memories.iter().map(|f| f.memory.memory_type).collect();
        assert_eq!(
            types,
            [
                MemoryType::Lesson,
                MemoryType::Lesson,
                MemoryType::Gotcha,
                MemoryType::Pattern
            ]
        );
        // Markers come first, indented or not, and the phrases are kept beside them.
        let with_marker =
            format!("{text}\n[MEMORY] type=decision: use sqlite\n    [MEMORY] indented works");
        assert_eq!(
            contents(&extract(&with_marker)),
            [
                "use sqlite",
                "indented works",
                "cargo caches builds in target.",
                "the CI cache key must include Cargo.lock!",
                "pyright ignores files outside the include list",
                "small commits make bisecting cheap."
            ]
        );
    }

    #[test]
    fn nothing_in_plain_text() {
        assert_eq!(extract("All tests pass.\n"), Extraction::default());
        assert_eq!(extract(""), Extraction::default());
    }

    #[test]
    fn markers_name_the_files_and_entities_they_are_about() {
        let found = extract(
            "[MEMORY] type=gotcha files=src/store.rs,src/schema.rs entities=Store::open: \
             open runs the migrations first\n",
        );
        assert!(found.rejected.is_empty(), "{:?}", found.rejected);
        let m = &found.memories[0].memory;
        assert_eq!(m.files, ["src/store.rs", "src/schema.rs"]);
        assert_eq!(m.entities, ["Store::open"]);
        assert_eq!(m.content, "open runs the migrations first");
        let bad = extract("[MEMORY] file=src/x.rs: singular is not an attribute\n");
        assert!(
            bad.rejected[0].reason.contains("files"),
            "{:?}",
            bad.rejected
        );
    }
}
