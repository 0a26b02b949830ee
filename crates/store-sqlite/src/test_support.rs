//! Helpers for unit tests: writing through the engine's duplicate checks, as the commands do.

use oro_mem_core::config::DedupConfig;
use oro_mem_core::store::WriteOutcome;
use oro_mem_core::{NewMemory, Result};
pub(crate) use oro_mem_engine::{remember_batch, remember_embedded};

use crate::Store;

/// Writes one memory with duplicate checks under `dedup`.
pub(crate) fn remember(s: &mut Store, m: NewMemory, dedup: &DedupConfig) -> Result<WriteOutcome> {
    Ok(remember_batch(s, vec![m], dedup)?.remove(0))
}
