//! [`WriteTransaction`]: the store's primitives for the write policy above it.

use std::collections::BTreeSet;

use oro_mem_core::store::{Commit, WriteTransaction};
use oro_mem_core::{Memory, MemoryId, Result, Timestamp};
use rusqlite::{params, Connection, TransactionBehavior};

use crate::row::{memory_from_row, MEMORY_COLUMNS};
use crate::similar::{similar, Probe, TermCounts};
use crate::store::{SqlContext, Store};
use crate::vectors;
use crate::write::{fold_into, unembed, Place};

/// A write transaction of the store (`BEGIN IMMEDIATE`: the write lock from its start).
struct Writing<'a> {
    conn: &'a Connection,
    /// The memories folded into others and deleted: they leave the vector index when the
    /// transaction commits, in one rewrite of its chunks.
    deleted: Vec<MemoryId>,
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
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        let mut writing = Writing {
            conn: &tx,
            deleted: Vec::new(),
        };
        if work(&mut writing)? == Commit::Yes {
            let deleted = std::mem::take(&mut writing.deleted);
            vectors::remove(&tx, &deleted)?;
            tx.commit().context("cannot commit")?;
        }
        Ok(())
    }
}

impl WriteTransaction for Writing<'_> {
    fn active_memories(&mut self) -> Result<Vec<Memory>> {
        let mut s = self
            .conn
            .prepare(&format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.status = 'active' ORDER BY m.id"
            ))
            .context("cannot read memories")?;
        let rows = s
            .query_map([], memory_from_row)
            .context("cannot read memories")?;
        rows.collect::<rusqlite::Result<_>>()
            .context("cannot read memories")
    }

    fn similar_lexically(
        &mut self,
        memory: &Memory,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        // Counted afresh for each: folding deletes memories.
        similar(
            self.conn,
            &mut TermCounts::default(),
            None,
            Probe {
                id: memory.id,
                content: &memory.content,
                namespace: &memory.namespace,
            },
            limit,
            at_least,
        )
    }

    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()> {
        fold_into(self.conn, keep, drop)?;
        self.deleted.push(drop.id);
        Ok(())
    }

    fn stale(&mut self, below: f64, unused_since: Timestamp) -> Result<Vec<MemoryId>> {
        let mut s = self
            .conn
            .prepare(
                "SELECT id FROM memories WHERE status = 'active' AND NOT pinned \
                 AND confidence < ?1 AND coalesce(last_accessed, created_at) < ?2 ORDER BY id",
            )
            .context("cannot find stale memories")?;
        let rows = s
            .query_map(params![below, unused_since.as_second()], |r| r.get(0))
            .context("cannot find stale memories")?;
        rows.collect::<rusqlite::Result<_>>()
            .context("cannot find stale memories")
    }

    fn archive(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        let mut s = self
            .conn
            .prepare_cached(
                "UPDATE memories SET status = 'archived', updated_at = ?2 WHERE id = ?1",
            )
            .context("cannot archive")?;
        for id in ids {
            s.execute(params![id, now.as_second()])
                .context("cannot archive")?;
        }
        Ok(())
    }

    fn unembed_after(&mut self, left: &[&Memory]) -> Result<Vec<MemoryId>> {
        let mut next = BTreeSet::new();
        for m in left {
            next.extend(Place::of(m).next(self.conn)?);
        }
        unembed(self.conn, &next.into_iter().collect::<Vec<_>>())
    }
}
