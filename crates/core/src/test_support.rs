//! Helpers for unit tests.

use crate::memory::{Memory, MemoryId, MemoryType, Source, Status};
use crate::time::Timestamp;

/// An active lesson with the given id and content, created at t = 0.
pub(crate) fn memory(id: MemoryId, content: &str) -> Memory {
    Memory {
        id,
        content: content.to_string(),
        memory_type: MemoryType::Lesson,
        tags: Vec::new(),
        source: Source::Manual,
        bead_id: None,
        worker_id: None,
        namespace: "default".to_string(),
        metadata: serde_json::Map::new(),
        confidence: 0.8,
        pinned: false,
        status: Status::Active,
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
        access_count: 0,
        last_accessed: None,
    }
}
