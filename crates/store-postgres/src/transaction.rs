//! [`WriteTransaction`]: the store's primitives for the write policy above it.

use std::collections::BTreeSet;

use oro_mem_core::store::{Commit, WriteTransaction};
use oro_mem_core::{Memory, MemoryId, Result, Timestamp};
use oro_mem_text::Analyzer;
use postgres::Transaction;

use crate::schema::WRITE_LOCK;
use crate::store::{memory_from_row, Context, Store, MEMORY_COLUMNS};
use crate::write::{fold_into, similar, unembed, Place};

/// A write transaction of the store, holding the schema's write lock ([`WRITE_LOCK`]) from
/// its start.
struct Writing<'a, 'b> {
    tx: &'a mut Transaction<'b>,
    analyzer: &'a Analyzer,
}

impl Store {
    /// Runs `work` in one write transaction, and commits what it did when it says so.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the store fails, or the
    /// first error `work` returns; nothing is changed then.
    pub fn transact(
        &mut self,
        work: &mut dyn FnMut(&mut dyn WriteTransaction) -> Result<Commit>,
    ) -> Result<()> {
        let mut client = self.client()?;
        let mut tx = client
            .transaction()
            .context("cannot start write transaction")?;
        tx.batch_execute(WRITE_LOCK)
            .context("cannot lock for writing")?;
        let commit = work(&mut Writing {
            tx: &mut tx,
            analyzer: &self.analyzer,
        })?;
        if commit == Commit::Yes {
            tx.commit().context("cannot commit")?;
        }
        Ok(())
    }
}

impl WriteTransaction for Writing<'_, '_> {
    fn active_memories(&mut self) -> Result<Vec<Memory>> {
        self.tx
            .query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.status = 'active' \
                     ORDER BY m.id"
                ),
                &[],
            )
            .context("cannot read memories")?
            .iter()
            .map(memory_from_row)
            .collect()
    }

    fn similar_lexically(
        &mut self,
        memory: &Memory,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        similar(
            self.tx,
            self.analyzer,
            memory.id,
            &memory.content,
            &memory.namespace,
            limit,
            at_least,
        )
    }

    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()> {
        fold_into(self.tx, self.analyzer, keep, drop)
    }

    fn stale(&mut self, below: f64, unused_since: Timestamp) -> Result<Vec<MemoryId>> {
        Ok(self
            .tx
            .query(
                "SELECT id FROM memories WHERE status = 'active' AND NOT pinned \
                 AND confidence < $1 AND coalesce(last_accessed, created_at) < $2 ORDER BY id",
                &[&below, &unused_since.as_second()],
            )
            .context("cannot find stale memories")?
            .iter()
            .map(|r| r.get::<_, i64>(0))
            .collect())
    }

    fn archive(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        self.tx
            .execute(
                "UPDATE memories SET status = 'archived', updated_at = $2 WHERE id = ANY($1)",
                &[&ids, &now.as_second()],
            )
            .context("cannot archive")?;
        Ok(())
    }

    fn unembed_after(&mut self, left: &[&Memory]) -> Result<Vec<MemoryId>> {
        let mut next = BTreeSet::new();
        for m in left {
            next.extend(Place::of(m).next(self.tx)?);
        }
        unembed(self.tx, &next.into_iter().collect::<Vec<_>>())
    }
}
