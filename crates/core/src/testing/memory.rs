//! [`MemoryBuilder`]: stored memories for tests.

use crate::memory::{Memory, MemoryId, MemoryType, Source, Status, DEFAULT_CONFIDENCE};
use crate::time::Timestamp;

/// Builds a stored [`Memory`] as a store would return it: an active lesson in the `default`
/// namespace, default confidence, created at t = 0, never accessed, until set otherwise.
///
/// ```
/// use oro_mem_core::testing::MemoryBuilder;
/// use oro_mem_core::{MemoryType, Timestamp};
///
/// let m = MemoryBuilder::new(7, "WAL allows one writer")
///     .memory_type(MemoryType::Gotcha)
///     .created_at(Timestamp(86_400))
///     .accessed(3, Timestamp(90_000))
///     .build();
/// assert_eq!((m.id, m.access_count), (7, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct MemoryBuilder {
    memory: Memory,
}

impl MemoryBuilder {
    /// An active lesson with `id` and `content`.
    pub fn new(id: MemoryId, content: impl Into<String>) -> MemoryBuilder {
        MemoryBuilder {
            memory: Memory {
                id,
                content: content.into(),
                memory_type: MemoryType::Lesson,
                tags: Vec::new(),
                source: Source::Manual,
                bead_id: None,
                worker_id: None,
                session: None,
                namespace: "default".to_string(),
                summary: None,
                files: Vec::new(),
                entities: Vec::new(),
                metadata: serde_json::Map::new(),
                confidence: DEFAULT_CONFIDENCE,
                pinned: false,
                status: Status::Active,
                merged_into: None,
                superseded_by: None,
                superseded_at: None,
                created_at: Timestamp(0),
                updated_at: Timestamp(0),
                return_count: 0,
                access_count: 0,
                last_accessed: None,
            },
        }
    }

    /// Sets the session.
    pub fn session(mut self, session: impl Into<String>) -> MemoryBuilder {
        self.memory.session = Some(session.into());
        self
    }

    /// Sets the type.
    pub fn memory_type(mut self, memory_type: MemoryType) -> MemoryBuilder {
        self.memory.memory_type = memory_type;
        self
    }

    /// Sets the tags.
    pub fn tags<I, S>(mut self, tags: I) -> MemoryBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.memory.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the namespace.
    pub fn namespace(mut self, namespace: impl Into<String>) -> MemoryBuilder {
        self.memory.namespace = namespace.into();
        self
    }

    /// Sets the confidence (not checked: a test may want a bad one).
    pub fn confidence(mut self, confidence: f64) -> MemoryBuilder {
        self.memory.confidence = confidence;
        self
    }

    /// Pins it.
    pub fn pinned(mut self, pinned: bool) -> MemoryBuilder {
        self.memory.pinned = pinned;
        self
    }

    /// Sets the status.
    pub fn status(mut self, status: Status) -> MemoryBuilder {
        self.memory.status = status;
        self
    }

    /// Sets the creation time (and the last change, to the same moment).
    pub fn created_at(mut self, at: Timestamp) -> MemoryBuilder {
        self.memory.created_at = at;
        self.memory.updated_at = at;
        self
    }

    /// Records `count` accesses, the last at `last`.
    pub fn accessed(mut self, count: u64, last: Timestamp) -> MemoryBuilder {
        self.memory.access_count = count;
        self.memory.last_accessed = Some(last);
        self
    }

    /// Sets a metadata field.
    pub fn metadata(mut self, key: impl Into<String>, value: serde_json::Value) -> MemoryBuilder {
        self.memory.metadata.insert(key.into(), value);
        self
    }

    /// The memory.
    pub fn build(self) -> Memory {
        self.memory
    }
}
