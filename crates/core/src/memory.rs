//! The memory model: what an agent remembers, and how it is validated.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::time::Timestamp;
use oro_mem_text::{is_blank, is_invisible};

/// Database identifier of a memory.
pub type MemoryId = i64;

macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name stored in the database and shown to people.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;

            fn from_str(s: &str) -> Result<$name> {
                let lower = s.trim().to_ascii_lowercase();
                $(if lower == $text { return Ok($name::$variant); })+
                let known: Vec<&str> = $name::ALL.iter().map(|v| v.as_str()).collect();
                Err(Error::invalid_input(format!(
                    "unknown {} {:?}: expected one of {}",
                    $what, s, known.join(", ")
                )))
            }
        }
    };
}

string_enum! {
    /// What kind of knowledge a memory holds.
    MemoryType, "memory type" {
        /// Something learned from experience.
        Lesson => "lesson",
        /// A choice that was made, and why.
        Decision => "decision",
        /// A trap to avoid.
        Gotcha => "gotcha",
        /// A way of doing things that works.
        Pattern => "pattern",
        /// How someone likes things done.
        Preference => "preference",
        /// How things are: a version, a command, a path, a piece of the architecture (what
        /// a knowledge update changes).
        Fact => "fact",
    }
}

string_enum! {
    /// Where a memory came from.
    Source, "source" {
        /// The agent reported it explicitly.
        SelfReport => "self_report",
        /// Extracted from an agent's output by a background process.
        DaemonExtracted => "daemon_extracted",
        /// Entered by a person.
        Manual => "manual",
        /// Imported from a file.
        Import => "import",
    }
}

string_enum! {
    /// Whether a memory takes part in recall.
    Status, "status" {
        /// Recalled normally.
        Active => "active",
        /// Kept, but not recalled unless asked for.
        Archived => "archived",
        /// Taken into another memory by consolidation ([`Memory::merged_into`]): kept, not
        /// recalled, and restorable.
        Merged => "merged",
        /// An older version of a fact that a newer memory replaced
        /// ([`Memory::superseded_by`]): kept with its history, not recalled, and restorable.
        Superseded => "superseded",
    }
}

/// The namespace used when none is given.
pub const DEFAULT_NAMESPACE: &str = "default";

/// The confidence used when none is given.
pub const DEFAULT_CONFIDENCE: f64 = 0.8;

/// A stored memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// Database identifier.
    pub id: MemoryId,
    /// The text of the memory.
    pub content: String,
    /// What kind of knowledge it holds.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// Where it came from.
    pub source: Source,
    /// The work item (bead) it was learned on, if any.
    pub bead_id: Option<String>,
    /// The worker that learned it, if any.
    pub worker_id: Option<String>,
    /// The session (conversation, agent run) it was written in, if any. Memories of one
    /// session are its episode, in time order; recall lets a session's neighbours lend each
    /// other context.
    #[serde(default)]
    pub session: Option<String>,
    /// Scope; recall searches one namespace at a time.
    pub namespace: String,
    /// A short summary, searched beside the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The files it is about (paths), searched with twice a word's weight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The entities it is about (symbols, services, tools), searched with twice a word's
    /// weight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Arbitrary JSON object.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// How much to trust it, in `[0, 1]`.
    pub confidence: f64,
    /// Pinned memories never decay.
    pub pinned: bool,
    /// Active, archived, merged or superseded.
    pub status: Status,
    /// The memory it was merged into, when its status is [`Status::Merged`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<MemoryId>,
    /// The newer version that replaced it, when its status is [`Status::Superseded`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<MemoryId>,
    /// When it was superseded, with [`Memory::superseded_by`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_at: Option<Timestamp>,
    /// When it was first stored.
    pub created_at: Timestamp,
    /// When it was last changed.
    pub updated_at: Timestamp,
    /// How many times recall (`recall`, `inject`, MCP search) has returned it.
    #[serde(default)]
    pub return_count: u64,
    /// How many times it was used: read in full by its id (MCP `memory_get`, `memories
    /// show`). A memory returned often but never used is likely noise.
    pub access_count: u64,
    /// When it was last used.
    pub last_accessed: Option<Timestamp>,
}

impl Memory {
    /// The text the full-text index searches: its content, and its tags, summary, files and
    /// entities when it has any, one per line.
    pub fn searched_text(&self) -> std::borrow::Cow<'_, str> {
        let about = self
            .tags
            .iter()
            .chain(self.summary.iter())
            .chain(&self.files)
            .chain(&self.entities);
        let mut about = about.peekable();
        if about.peek().is_none() {
            return std::borrow::Cow::Borrowed(&self.content);
        }
        let mut text = self.content.clone();
        for part in about {
            text.push('\n');
            text.push_str(part);
        }
        std::borrow::Cow::Owned(text)
    }
}

/// A memory to be stored: everything but what the store assigns.
///
/// Build one with [`NewMemory::new`] and the setters, then check it with
/// [`NewMemory::validate`] (stores call it before writing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewMemory {
    /// The text of the memory.
    pub content: String,
    /// What kind of knowledge it holds.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Free-form labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Where it came from.
    #[serde(default = "default_source")]
    pub source: Source,
    /// The work item it was learned on.
    #[serde(default)]
    pub bead_id: Option<String>,
    /// The worker that learned it.
    #[serde(default)]
    pub worker_id: Option<String>,
    /// The session it was written in.
    #[serde(default)]
    pub session: Option<String>,
    /// Scope.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// A short summary, searched beside the content: one line, at most
    /// [`MAX_SUMMARY_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The files it is about (paths), at most [`MAX_ABOUT`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The entities it is about (symbols, services, tools), at most [`MAX_ABOUT`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Arbitrary JSON object.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// How much to trust it, in `[0, 1]`.
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Pinned memories never decay.
    #[serde(default)]
    pub pinned: bool,
    /// Active or archived.
    #[serde(default = "default_status")]
    pub status: Status,
    /// Creation time; `None` means "now".
    #[serde(default)]
    pub created_at: Option<Timestamp>,
    /// Return count carried over from elsewhere (imports, merges), at most
    /// [`MAX_ACCESS_COUNT`].
    #[serde(default)]
    pub return_count: u64,
    /// Access (use) count carried over from elsewhere (imports, merges), at most
    /// [`MAX_ACCESS_COUNT`].
    #[serde(default)]
    pub access_count: u64,
    /// Last access carried over from elsewhere.
    #[serde(default)]
    pub last_accessed: Option<Timestamp>,
    /// The stored memories it is the newer version of: once it is written they are
    /// [`Status::Superseded`], linked to it. Each must be of its namespace, and active or
    /// archived. At most [`MAX_SUPERSEDES`]; an id given twice counts once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<MemoryId>,
}

/// The most memories one memory supersedes.
pub const MAX_SUPERSEDES: usize = 100;

/// The text a memory's embedding is made from: its summary, a blank line, then its content;
/// its content alone when it has no summary. (Both stores build the same text for
/// [`MemoryWrite::claim_unembedded`](crate::MemoryWrite::claim_unembedded).)
pub fn embedded_text<'a>(summary: Option<&str>, content: &'a str) -> std::borrow::Cow<'a, str> {
    match summary {
        Some(summary) => std::borrow::Cow::Owned(format!("{summary}\n\n{content}")),
        None => std::borrow::Cow::Borrowed(content),
    }
}

/// How many memories before it in its session a memory is embedded with (their texts to
/// embed, oldest first, one per line), when `embedding.session_context` is above 0: a
/// conversation's turn is understood with the turns it follows. Chosen with LoCoMo's
/// conversations, each left out in turn: hybrid nDCG@10 0.5655 with one, 0.5722 with two,
/// and three score below two at every weight tried (see `docs/retrieval-quality.md`).
pub const CONTEXT_MEMORIES: usize = 2;

/// For each of `memories`, the memories before it in its session among them, as places in
/// `memories` with their creation times, oldest first: the last [`CONTEXT_MEMORIES`] active
/// memories of its session and namespace before it by creation time and then place (the
/// order of a store that held exactly these, written in this order); none without a session.
/// A memory without a creation time counts as created at `now`.
pub fn places_before(memories: &[&NewMemory], now: Timestamp) -> Vec<Vec<(Timestamp, usize)>> {
    let at = |i: usize| memories[i].created_at.unwrap_or(now);
    let mut sessions: std::collections::HashMap<(&str, &str), Vec<(Timestamp, usize)>> =
        std::collections::HashMap::new();
    for (i, m) in memories.iter().enumerate() {
        if let (Some(session), Status::Active) = (m.session.as_deref(), m.status) {
            sessions
                .entry((m.namespace.as_str(), session))
                .or_default()
                .push((at(i), i));
        }
    }
    sessions.values_mut().for_each(|v| v.sort_unstable());
    memories
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let Some(episode) = m
                .session
                .as_deref()
                .and_then(|session| sessions.get(&(m.namespace.as_str(), session)))
            else {
                return Vec::new();
            };
            let place = episode.partition_point(|&e| e < (at(i), i));
            episode[place.saturating_sub(CONTEXT_MEMORIES)..place].to_vec()
        })
        .collect()
}

/// The texts to embed of the memories before each of `memories` in its session
/// ([`places_before`]), one per line, as a store that held exactly these, written in this
/// order, would hand them out ([`ToEmbed::before`](crate::store::ToEmbed::before)); `None`
/// with none before it. Given another store's memories in the order they were written
/// ([`for_each_embedded`](crate::store::MemoryStore::for_each_embedded) lists them so), it
/// tells what that store's embeddings of them were made with.
pub fn before_each(memories: &[&NewMemory], now: Timestamp) -> Vec<Option<String>> {
    places_before(memories, now)
        .into_iter()
        .map(|before| {
            (!before.is_empty()).then(|| {
                before
                    .iter()
                    .map(|&(_, j)| {
                        embedded_text(memories[j].summary.as_deref(), &memories[j].content)
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        })
        .collect()
}

/// The longest summary, in bytes: a line, not a second content.
pub const MAX_SUMMARY_BYTES: usize = 500;

/// The most files, and the most entities, one memory is about.
pub const MAX_ABOUT: usize = 100;

/// The largest access count a memory holds: 2^53, the largest whole number every JSON reader
/// keeps exact. Stores saturate there rather than overflow.
pub const MAX_ACCESS_COUNT: u64 = 1 << 53;

fn default_source() -> Source {
    Source::Manual
}
fn default_namespace() -> String {
    DEFAULT_NAMESPACE.to_string()
}
fn default_confidence() -> f64 {
    DEFAULT_CONFIDENCE
}
fn default_status() -> Status {
    Status::Active
}

impl NewMemory {
    /// A memory with the given content and type and every other field at its default.
    pub fn new(content: impl Into<String>, memory_type: MemoryType) -> NewMemory {
        NewMemory {
            content: content.into(),
            memory_type,
            tags: Vec::new(),
            source: default_source(),
            bead_id: None,
            worker_id: None,
            session: None,
            namespace: default_namespace(),
            summary: None,
            files: Vec::new(),
            entities: Vec::new(),
            metadata: serde_json::Map::new(),
            confidence: DEFAULT_CONFIDENCE,
            pinned: false,
            status: Status::Active,
            created_at: None,
            return_count: 0,
            access_count: 0,
            last_accessed: None,
            supersedes: Vec::new(),
        }
    }

    /// Sets the memories it supersedes ([`NewMemory::supersedes`]).
    pub fn supersedes(mut self, ids: impl IntoIterator<Item = MemoryId>) -> NewMemory {
        self.supersedes = ids.into_iter().collect();
        self
    }

    /// Sets the tags.
    pub fn tags<I, S>(mut self, tags: I) -> NewMemory
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the confidence.
    pub fn confidence(mut self, confidence: f64) -> NewMemory {
        self.confidence = confidence;
        self
    }

    /// Sets the namespace.
    pub fn namespace(mut self, namespace: impl Into<String>) -> NewMemory {
        self.namespace = namespace.into();
        self
    }

    /// Sets the source.
    pub fn source(mut self, source: Source) -> NewMemory {
        self.source = source;
        self
    }

    /// Sets the session.
    pub fn session(mut self, session: impl Into<String>) -> NewMemory {
        self.session = Some(session.into());
        self
    }

    /// Sets the summary.
    pub fn summary(mut self, summary: impl Into<String>) -> NewMemory {
        self.summary = Some(summary.into());
        self
    }

    /// Sets the files it is about.
    pub fn files<I, S>(mut self, files: I) -> NewMemory
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.files = files.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the entities it is about.
    pub fn entities<I, S>(mut self, entities: I) -> NewMemory
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.entities = entities.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the creation time.
    pub fn created_at(mut self, at: Timestamp) -> NewMemory {
        self.created_at = Some(at);
        self
    }

    /// Checks every field and normalizes tags (trimmed, empty ones dropped, duplicates removed).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the first bad field:
    /// content empty or only whitespace or invisible characters, confidence not a finite
    /// number in `[0, 1]`, an empty namespace or session, a summary that is empty, longer than
    /// [`MAX_SUMMARY_BYTES`] or more than one line, more than [`MAX_ABOUT`] files or entities.
    /// A session and a summary are stored without surrounding whitespace; files and entities
    /// as tags are (trimmed, empty ones dropped, each once).
    pub fn validate(&mut self) -> Result<()> {
        if is_blank(&self.content) {
            return Err(Error::invalid_input(if self.content.is_empty() {
                "memory content is empty"
            } else {
                "memory content is empty: it has only whitespace or invisible characters \
                 (zero-width spaces, a byte-order mark, ...)"
            }));
        }
        if self.content.contains('\0') {
            return Err(Error::invalid_input("memory content contains a NUL byte"));
        }
        validate_confidence(self.confidence)?;
        for (name, count) in [
            ("access_count", self.access_count),
            ("return_count", self.return_count),
        ] {
            if count > MAX_ACCESS_COUNT {
                return Err(Error::invalid_input(format!(
                    "{name} {count} is above the maximum, {MAX_ACCESS_COUNT}"
                )));
            }
        }
        if is_blank(&self.namespace) {
            return Err(Error::invalid_input(
                "namespace is empty (or only whitespace or invisible characters)",
            ));
        }
        trim_optional(&mut self.session, "session")?;
        trim_optional(&mut self.summary, "summary")?;
        if let Some(trimmed) = &self.summary {
            if trimmed.len() > MAX_SUMMARY_BYTES || trimmed.contains(['\n', '\r', '\0']) {
                return Err(Error::invalid_input(format!(
                    "summary must be one line of at most {MAX_SUMMARY_BYTES} bytes, got {} \
                     bytes{}",
                    trimmed.len(),
                    if trimmed.contains(['\n', '\r']) {
                        " on several lines"
                    } else {
                        ""
                    }
                )));
            }
        }
        self.tags = normalize_tags(&self.tags);
        self.files = normalize_tags(&self.files);
        self.entities = normalize_tags(&self.entities);
        let mut seen = std::collections::BTreeSet::new();
        self.supersedes.retain(|id| seen.insert(*id));
        if self.supersedes.len() > MAX_SUPERSEDES {
            return Err(Error::invalid_input(format!(
                "a memory supersedes at most {MAX_SUPERSEDES} memories, got {}",
                self.supersedes.len()
            )));
        }
        for (what, list) in [("files", &self.files), ("entities", &self.entities)] {
            if list.len() > MAX_ABOUT {
                return Err(Error::invalid_input(format!(
                    "a memory is about at most {MAX_ABOUT} {what}, got {}",
                    list.len()
                )));
            }
            if list.iter().any(|x| x.contains('\0')) {
                return Err(Error::invalid_input(format!("{what} contain a NUL byte")));
            }
        }
        Ok(())
    }
}

/// `value` without surrounding whitespace or invisible characters, when there is one.
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming `what` when nothing is
/// left of it.
fn trim_optional(value: &mut Option<String>, what: &str) -> Result<()> {
    let Some(v) = value else { return Ok(()) };
    let trimmed = v.trim_matches(is_invisible);
    if trimmed.is_empty() {
        return Err(Error::invalid_input(format!(
            "{what} is empty (or only whitespace or invisible characters); leave it out for none"
        )));
    }
    if trimmed.len() != v.len() {
        *v = trimmed.to_string();
    }
    Ok(())
}

/// `tags` as stored and as filters match them: without surrounding whitespace or invisible
/// characters, empty ones dropped, each once, in their first order.
pub fn normalize_tags(tags: &[impl AsRef<str>]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    tags.iter()
        .map(|t| t.as_ref().trim_matches(is_invisible))
        .filter(|t| !t.is_empty() && seen.insert(*t))
        .map(str::to_string)
        .collect()
}

/// Validates every memory of `batch` ([`NewMemory::validate`]); when there is more than one,
/// the error names the position of the first bad one (from 1).
///
/// # Errors
///
/// As [`NewMemory::validate`].
pub fn validate_batch<'a>(batch: impl IntoIterator<Item = &'a mut NewMemory>) -> Result<()> {
    check_batch(batch, NewMemory::validate)
}

/// Runs `check` on every item of `batch` in order; when there is more than one item, the
/// error names the position of the first bad one (`memory 2 of the batch: ...`).
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) with `check`'s message, for a
/// batch; `check`'s own error for a single item.
pub fn check_batch<T>(
    batch: impl IntoIterator<Item = T>,
    mut check: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let mut batch = batch.into_iter().peekable();
    let mut i = 0;
    while let Some(item) = batch.next() {
        i += 1;
        let many = i > 1 || batch.peek().is_some();
        check(item).map_err(|e| {
            if many {
                Error::invalid_input(format!("memory {i} of the batch: {e}"))
            } else {
                e
            }
        })?;
    }
    Ok(())
}

/// The stored memory as something to store elsewhere: everything but the id, `updated_at` and
/// the links to other memories (their ids are this store's) is kept (times, confidence,
/// access counts, pin, status, metadata).
impl From<Memory> for NewMemory {
    fn from(m: Memory) -> NewMemory {
        NewMemory {
            content: m.content,
            memory_type: m.memory_type,
            tags: m.tags,
            source: m.source,
            bead_id: m.bead_id,
            worker_id: m.worker_id,
            session: m.session,
            namespace: m.namespace,
            summary: m.summary,
            files: m.files,
            entities: m.entities,
            metadata: m.metadata,
            confidence: m.confidence,
            pinned: m.pinned,
            status: m.status,
            created_at: Some(m.created_at),
            return_count: m.return_count,
            access_count: m.access_count,
            last_accessed: m.last_accessed,
            supersedes: Vec::new(),
        }
    }
}

/// Checks that `confidence` is a finite number in `[0, 1]`.
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) saying what was wrong.
pub fn validate_confidence(confidence: f64) -> Result<()> {
    if !confidence.is_finite() || !(0.0..=1.0).contains(&confidence) {
        return Err(Error::invalid_input(format!(
            "confidence must be a number between 0 and 1, got {confidence}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_type_parses_case_insensitively_and_names_choices_on_error() {
        assert_eq!("Gotcha".parse::<MemoryType>().unwrap(), MemoryType::Gotcha);
        let err = "insight".parse::<MemoryType>().unwrap_err();
        assert!(err.to_string().contains("lesson, decision, gotcha"));
    }

    #[test]
    fn validate_rejects_empty_content_and_bad_confidence() {
        assert!(NewMemory::new("  \n", MemoryType::Lesson)
            .validate()
            .is_err());
        for c in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
            let err = NewMemory::new("x", MemoryType::Lesson)
                .confidence(c)
                .validate()
                .unwrap_err();
            assert!(err.to_string().contains("confidence"), "{err}");
        }
    }

    #[test]
    fn validate_normalizes_tags() {
        let mut m = NewMemory::new("x", MemoryType::Lesson).tags([
            " a",
            "b",
            "a",
            "",
            "\u{200B}",
            "b\u{FEFF}",
        ]);
        m.validate().unwrap();
        assert_eq!(m.tags, vec!["a", "b"]);
    }

    #[test]
    fn invisible_content_is_empty_content() {
        for text in [
            "\u{200B}",
            "\u{FEFF}",
            " \u{200B}\u{200D}\u{2060} \u{00AD}\n",
            "\u{E0041}",
        ] {
            let err = NewMemory::new(text, MemoryType::Lesson)
                .validate()
                .unwrap_err();
            assert!(err.to_string().contains("invisible"), "{text:?}: {err}");
        }
        // Invisible characters inside visible text are kept as they are.
        let mut m = NewMemory::new("zero\u{200B}width", MemoryType::Lesson);
        m.validate().unwrap();
        assert_eq!(m.content, "zero\u{200B}width");
        let err = NewMemory::new("x", MemoryType::Lesson)
            .namespace("\u{FEFF}")
            .validate()
            .unwrap_err();
        assert!(err.to_string().contains("namespace"), "{err}");
    }
}
