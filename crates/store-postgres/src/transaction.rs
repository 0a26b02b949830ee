//! [`WriteTransaction`]: the store's primitives for the write policy above it.

use std::collections::BTreeSet;

use oro_mem_core::store::{Commit, Embedding, WriteTransaction};
use oro_mem_core::{Error, Memory, MemoryId, NewMemory, Result, Timestamp};
use oro_mem_text::Analyzer;
use postgres::Transaction;

use crate::search::nearest;
use crate::sql::Params;
use crate::store::{begin_writing, memory_from_row, Context, Store, MEMORY_COLUMNS};
use crate::write::{
    fold_into, insert, register_model, similar, unembed, unembed_after_inserted, Place,
    NEAREST_DUPLICATES,
};
use pgvector::Vector;

/// A write transaction of the store, holding the schema's write lock from its start
/// ([`begin_writing`]).
struct Writing<'a, 'b> {
    tx: &'a mut Transaction<'b>,
    analyzer: &'a Analyzer,
    /// The provisional write, until it is kept or taken back.
    provisional: Option<MemoryId>,
    /// The memories this transaction wrote.
    inserted: Vec<MemoryId>,
}

impl Writing<'_, '_> {
    /// Keeps the provisional write, if any.
    fn release(&mut self) -> Result<()> {
        if let Some(id) = self.provisional.take() {
            self.tx
                .batch_execute("RELEASE SAVEPOINT provisional")
                .context("cannot release savepoint")?;
            self.inserted.push(id);
        }
        Ok(())
    }

    /// What a commit needs first: the provisional write kept, and the embeddings the written
    /// memories made stale dropped.
    fn finish(&mut self) -> Result<()> {
        self.release()?;
        unembed_after_inserted(self.tx, &self.inserted)?;
        Ok(())
    }
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
        let mut tx = begin_writing(&mut client)?;
        let mut writing = Writing {
            tx: &mut tx,
            analyzer: &self.analyzer,
            provisional: None,
            inserted: Vec::new(),
        };
        let commit = work(&mut writing)?;
        if commit == Commit::Yes {
            writing.finish()?;
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

    fn insert(
        &mut self,
        memories: &[(&NewMemory, Option<&Embedding>)],
        now: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        self.release()?;
        let ids = insert(self.tx, self.analyzer, memories, now)?;
        self.inserted.extend(&ids);
        Ok(ids)
    }

    fn insert_provisionally(
        &mut self,
        memory: &NewMemory,
        embedding: Option<&Embedding>,
        now: Timestamp,
    ) -> Result<MemoryId> {
        self.release()?;
        self.tx
            .batch_execute("SAVEPOINT provisional")
            .context("cannot start savepoint")?;
        let id = insert(self.tx, self.analyzer, &[(memory, embedding)], now)?[0];
        self.provisional = Some(id);
        Ok(id)
    }

    fn withdraw(&mut self, id: MemoryId) -> Result<()> {
        if self.provisional != Some(id) {
            return Err(Error::invalid_input(format!(
                "memory {id} is not the provisional write of this transaction"
            )));
        }
        self.provisional = None;
        self.tx
            .batch_execute("ROLLBACK TO SAVEPOINT provisional; RELEASE SAVEPOINT provisional")
            .context("cannot roll back duplicate")?;
        Ok(())
    }

    fn memories_up_to(&mut self, most: u64) -> Result<u64> {
        let n: i64 = self
            .tx
            .query_one(
                "SELECT count(*) FROM (SELECT 1 FROM memories LIMIT $1) m",
                &[&i64::try_from(most).unwrap_or(i64::MAX)],
            )
            .context("cannot count memories")?
            .get(0);
        Ok(n as u64)
    }

    fn memory(&mut self, id: MemoryId) -> Result<Memory> {
        let row = self
            .tx
            .query_opt(
                &format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = $1"),
                &[&id],
            )
            .context("cannot read memory")?
            .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))?;
        memory_from_row(&row)
    }

    fn similar_lexically(
        &mut self,
        id: MemoryId,
        content: &str,
        namespace: &str,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        similar(
            self.tx,
            self.analyzer,
            id,
            content,
            namespace,
            limit,
            at_least,
        )
    }

    fn similar_by_vector(
        &mut self,
        id: MemoryId,
        namespace: &str,
        embedding: &Embedding,
    ) -> Result<Vec<(MemoryId, f64)>> {
        let dim = embedding.vector.len();
        // Registered by any write of its embeddings: this reads its id.
        let model = register_model(self.tx, &embedding.model, dim)?;
        let mut p = Params::default();
        let cond = format!(
            "m.namespace = {} AND m.status = 'active' AND m.id <> {}",
            p.add(namespace.to_string()),
            p.add(id)
        );
        nearest(
            self.tx,
            model,
            dim,
            &embedding.vector,
            &cond,
            p,
            NEAREST_DUPLICATES,
        )
    }

    fn embedding_of(&mut self, id: MemoryId) -> Result<Option<Embedding>> {
        let row = self
            .tx
            .query_opt(
                "SELECT m.embedding, e.model FROM memories m \
                 JOIN embedding_models e ON e.id = m.embedding_model_id \
                 WHERE m.id = $1 AND m.embedding IS NOT NULL",
                &[&id],
            )
            .context("cannot read embedding")?;
        Ok(row.map(|r| {
            let v: Vector = r.get(0);
            Embedding {
                model: r.get(1),
                vector: v.to_vec(),
            }
        }))
    }

    fn set_confidence(&mut self, id: MemoryId, confidence: f64, now: Timestamp) -> Result<()> {
        self.release()?;
        self.tx
            .execute(
                "UPDATE memories SET confidence = $2, updated_at = $3 WHERE id = $1",
                &[&id, &confidence, &now.as_second()],
            )
            .context("cannot merge duplicate")?;
        Ok(())
    }

    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()> {
        self.release()?;
        fold_into(self.tx, self.analyzer, keep, drop)
    }

    fn supersede(&mut self, old: MemoryId, by: MemoryId, now: Timestamp) -> Result<()> {
        self.release()?;
        self.tx
            .execute(
                "UPDATE memories m SET \
                   access_count = greatest(m.access_count, o.access_count), \
                   return_count = greatest(m.return_count, o.return_count), \
                   last_accessed = nullif(greatest(coalesce(m.last_accessed, 0), \
                                                   coalesce(o.last_accessed, 0)), 0), \
                   pinned = m.pinned OR o.pinned \
                 FROM memories o WHERE o.id = $1 AND m.id = $2",
                &[&old, &by],
            )
            .context("cannot pass the superseded memory's history on")?;
        // Kept: its postings and vector stay, as an archived memory's do.
        self.tx
            .execute(
                "UPDATE memories SET status = 'superseded', superseded_by = $2, \
                   superseded_at = $3, updated_at = $3 WHERE id = $1",
                &[&old, &by, &now.as_second()],
            )
            .context("cannot mark the memory superseded")?;
        Ok(())
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
        self.release()?;
        self.tx
            .execute(
                "UPDATE memories SET status = 'archived', updated_at = $2 WHERE id = ANY($1)",
                &[&ids, &now.as_second()],
            )
            .context("cannot archive")?;
        Ok(())
    }

    fn unembed_after(&mut self, left: &[&Memory]) -> Result<Vec<MemoryId>> {
        self.release()?;
        let mut next = BTreeSet::new();
        for m in left {
            next.extend(Place::of(m).next(self.tx)?);
        }
        unembed(self.tx, &next.into_iter().collect::<Vec<_>>())
    }
}
