//! Helpers for unit tests.

use crate::memory::{Memory, MemoryId};
use crate::testing::MemoryBuilder;

/// An active lesson with the given id and content, created at t = 0.
pub(crate) fn memory(id: MemoryId, content: &str) -> Memory {
    MemoryBuilder::new(id, content).build()
}
