//! Helpers for unit tests.

use oro_mem_core::testing::MemoryBuilder;
use oro_mem_core::{Memory, MemoryId};

/// An active lesson with the given id and content, created at t = 0.
pub(crate) fn memory(id: MemoryId, content: &str) -> Memory {
    MemoryBuilder::new(id, content).build()
}
