//! [`WriteTransaction`]: the store's primitives for the write policy above it (the engine's
//! duplicate checks and consolidation).

use std::collections::BTreeSet;

use oro_mem_core::store::{Commit, Embedding, WriteTransaction};
use oro_mem_core::{Error, Memory, MemoryId, NewMemory, Result, Status, Timestamp};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::mirror::{data_version, Mirror, Prepared, Stamp};
use crate::row::{memory_from_row, MEMORY_COLUMNS};
use crate::similar::{similar, Probe, TermCounts};
use crate::store::{SqlContext, Store};
use crate::write::{
    embedding_of, fold_into, index_added, insert, next_active, similar_vectors, store_embedding,
    unembed, Added, Json, Place,
};

/// A memory this transaction wrote: where it stands in its session, for the embeddings it
/// makes stale there.
struct Inserted {
    id: MemoryId,
    namespace: String,
    session: Option<String>,
    active: bool,
    created_at: i64,
}

impl Inserted {
    fn of(id: MemoryId, m: &NewMemory, now: Timestamp) -> Inserted {
        Inserted {
            id,
            namespace: m.namespace.clone(),
            session: m.session.clone(),
            active: m.status == Status::Active,
            created_at: m.created_at.unwrap_or(now).as_second(),
        }
    }
}

/// The provisional write, until it is kept or taken back.
struct Provisional {
    inserted: Inserted,
    /// Its content: what the mirror prepared, and so the one query the mirror answers.
    content: String,
    /// What the mirror prepared for it, when the mirror holds it.
    prepared: Option<Prepared>,
    embedding: Option<Embedding>,
}

/// A write transaction of the store (`BEGIN IMMEDIATE`: the write lock from its start).
struct Writing<'a> {
    conn: &'a Connection,
    /// Term counts for the duplicate checks of provisional writes; the transaction only adds
    /// memories meanwhile, so a term counted once stays a lower bound.
    counts: TermCounts,
    /// The store's mirror of its index, for the duplicate checks; `mirrored` once this
    /// transaction brought it up to date and keeps it in step with its writes.
    mirror: Option<Mirror>,
    mirror_enabled: bool,
    mirrored: bool,
    provisional: Option<Provisional>,
    /// The memories written with an embedding: the vector index takes them at commit.
    added: Vec<Added>,
    inserted: Vec<Inserted>,
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
        let mirror = if self.mirror_enabled {
            self.mirror.get_mut().take()
        } else {
            None
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        let mut writing = Writing {
            conn: &tx,
            counts: TermCounts::default(),
            mirror,
            mirror_enabled: self.mirror_enabled,
            mirrored: false,
            provisional: None,
            added: Vec::new(),
            inserted: Vec::new(),
        };
        let done = work(&mut writing).and_then(|commit| {
            if commit == Commit::Yes {
                writing.finish()?;
            }
            Ok(commit)
        });
        let (mirror, mirrored) = (writing.mirror.take(), writing.mirrored);
        drop(writing);
        let kept = match done {
            Ok(Commit::Yes) => {
                let version = data_version(&tx)?;
                tx.commit().context("cannot commit")?;
                Some(version)
            }
            Ok(Commit::No) | Err(_) => {
                drop(tx);
                None
            }
        };
        // A mirror this transaction kept in step follows it only when it commits; one it
        // did not use is as it was.
        let mirror = match (mirror, mirrored, kept) {
            (Some(mut m), true, Some(version)) => {
                m.keep(Stamp::after_commit(&self.conn, version)?);
                Some(m)
            }
            (m, false, _) => m,
            _ => None,
        };
        *self.mirror.get_mut() = mirror;
        done.map(|_| ())
    }
}

impl Writing<'_> {
    /// Keeps the provisional write, if any.
    fn release(&mut self) -> Result<()> {
        let Some(p) = self.provisional.take() else {
            return Ok(());
        };
        self.conn
            .execute_batch("RELEASE provisional")
            .context("cannot release savepoint")?;
        if let Some(e) = p.embedding {
            self.added.push(Added {
                id: p.inserted.id,
                model: e.model,
                vector: e.vector,
                namespace: p.inserted.namespace.clone(),
            });
        }
        self.inserted.push(p.inserted);
        self.drop_broken_mirror();
        Ok(())
    }

    /// Lets go of a mirror that found the index other than it thought.
    fn drop_broken_mirror(&mut self) {
        if self.mirror.as_ref().is_some_and(|m| m.broken) {
            self.mirror = None;
        }
    }

    /// What a commit needs first: the provisional write kept, the vector index in step with
    /// the memories written, and the embeddings the written ones made stale dropped.
    fn finish(&mut self) -> Result<()> {
        self.release()?;
        index_added(self.conn, &self.added)?;
        // A memory written into its session comes before the next memories there, whose
        // embeddings were made without it (not those of this transaction's own).
        let mut next = BTreeSet::new();
        for m in &self.inserted {
            if let (Some(session), true) = (m.session.as_deref(), m.active) {
                next.extend(next_active(
                    self.conn,
                    &m.namespace,
                    session,
                    (m.created_at, m.id),
                )?);
            }
        }
        for m in &self.inserted {
            next.remove(&m.id);
        }
        unembed(self.conn, &next.into_iter().collect::<Vec<_>>())?;
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

    fn insert(
        &mut self,
        memories: &[(&NewMemory, Option<&Embedding>)],
        now: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        self.release()?;
        let mut ids = Vec::with_capacity(memories.len());
        for &(m, e) in memories {
            let id = insert(self.conn, m, &Json::of(m)?, now)?;
            if let Some(e) = e {
                store_embedding(self.conn, id, &e.model, &e.vector)?;
                self.added.push(Added {
                    id,
                    model: e.model.clone(),
                    vector: e.vector.clone(),
                    namespace: m.namespace.clone(),
                });
            }
            self.inserted.push(Inserted::of(id, m, now));
            ids.push(id);
        }
        Ok(ids)
    }

    fn insert_provisionally(
        &mut self,
        memory: &NewMemory,
        embedding: Option<&Embedding>,
        now: Timestamp,
    ) -> Result<MemoryId> {
        self.release()?;
        if self.mirror_enabled && !self.mirrored {
            // The checks read the mirror kept from the last transaction, if the index is
            // still as it left it, else a new one.
            Mirror::current(&mut self.mirror, self.conn)?;
            self.mirrored = true;
        }
        self.conn
            .execute_batch("SAVEPOINT provisional")
            .context("cannot start savepoint")?;
        let json = Json::of(memory)?;
        // The mirror reads the terms of the memory's query before the insert, then adds it.
        let prepared = match self.mirror.as_mut() {
            Some(mirror) => Some(mirror.prepare(self.conn, &json.fields(memory))?),
            None => None,
        };
        let id = insert(self.conn, memory, &json, now)?;
        if let (Some(mirror), Some(p)) = (self.mirror.as_mut(), &prepared) {
            mirror.add(id, p);
        }
        if let Some(e) = embedding {
            store_embedding(self.conn, id, &e.model, &e.vector)?;
        }
        self.provisional = Some(Provisional {
            inserted: Inserted::of(id, memory, now),
            content: memory.content.clone(),
            prepared,
            embedding: embedding.cloned(),
        });
        Ok(id)
    }

    fn withdraw(&mut self, id: MemoryId) -> Result<()> {
        let Some(p) = self.provisional.take_if(|p| p.inserted.id == id) else {
            return Err(Error::invalid_input(format!(
                "memory {id} is not the provisional write of this transaction"
            )));
        };
        self.conn
            .execute_batch("ROLLBACK TO provisional; RELEASE provisional")
            .context("cannot roll back duplicate")?;
        if let (Some(mirror), Some(prepared)) = (self.mirror.as_mut(), &p.prepared) {
            mirror.remove(id, prepared);
        }
        self.drop_broken_mirror();
        Ok(())
    }

    fn memories_up_to(&mut self, most: u64) -> Result<u64> {
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM memories LIMIT ?1)")
            .and_then(|mut s| s.query_row([i64::try_from(most).unwrap_or(i64::MAX)], |r| r.get(0)))
            .context("cannot count memories")?;
        Ok(n as u64)
    }

    fn memory(&mut self, id: MemoryId) -> Result<Memory> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ?1"
            ))
            .and_then(|mut s| s.query_row([id], memory_from_row).optional())
            .context("cannot read memory")?
            .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))
    }

    fn similar_lexically(
        &mut self,
        id: MemoryId,
        content: &str,
        namespace: &str,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        let probe = Probe {
            id,
            content,
            namespace,
        };
        match &self.provisional {
            Some(p) if p.inserted.id == id => {
                // Some of its words as the query: the mirror read their rows too.
                let narrowed;
                let prepared = match (&self.mirror, &p.prepared) {
                    (Some(mirror), Some(prepared)) if p.content != content => {
                        narrowed = mirror.narrow(prepared, content)?;
                        narrowed.as_ref()
                    }
                    _ => p.prepared.as_ref(),
                };
                let mirrored = self.mirror.as_mut().zip(prepared);
                similar(
                    self.conn,
                    &mut self.counts,
                    mirrored,
                    probe,
                    limit,
                    at_least,
                )
            }
            // Counted afresh: outside provisional writes, memories may have been deleted.
            _ => similar(
                self.conn,
                &mut TermCounts::default(),
                None,
                probe,
                limit,
                at_least,
            ),
        }
    }

    fn similar_by_vector(
        &mut self,
        id: MemoryId,
        namespace: &str,
        embedding: &Embedding,
    ) -> Result<Vec<(MemoryId, f64)>> {
        similar_vectors(
            self.conn,
            id,
            &embedding.model,
            &embedding.vector,
            namespace,
            &self.added,
        )
    }

    fn embedding_of(&mut self, id: MemoryId) -> Result<Option<Embedding>> {
        embedding_of(self.conn, id, &self.added)
    }

    fn set_confidence(&mut self, id: MemoryId, confidence: f64, now: Timestamp) -> Result<()> {
        self.release()?;
        self.conn
            .execute(
                "UPDATE memories SET confidence = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, confidence, now.as_second()],
            )
            .context("cannot merge duplicate")?;
        Ok(())
    }

    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()> {
        self.release()?;
        // Kept, merged: its vector stays, as an archived memory's does (searches read active
        // memories only).
        fold_into(self.conn, keep, drop)?;
        Ok(())
    }

    fn supersede(&mut self, old: MemoryId, by: MemoryId, now: Timestamp) -> Result<()> {
        self.release()?;
        self.conn
            .execute(
                "UPDATE memories SET \
                   access_count = max(memories.access_count, o.accessed), \
                   return_count = max(memories.return_count, o.returned), \
                   last_accessed = nullif(max(coalesce(memories.last_accessed, 0), \
                                              coalesce(o.last, 0)), 0), \
                   pinned = max(memories.pinned, o.pin) \
                 FROM (SELECT access_count AS accessed, return_count AS returned, \
                              last_accessed AS last, pinned AS pin \
                       FROM memories WHERE id = ?1) AS o \
                 WHERE memories.id = ?2",
                params![old, by],
            )
            .context("cannot pass the superseded memory's history on")?;
        // Kept: its vector stays, as an archived memory's does.
        self.conn
            .execute(
                "UPDATE memories SET status = 'superseded', superseded_by = ?2, \
                   superseded_at = ?3, updated_at = ?3 WHERE id = ?1",
                params![old, by, now.as_second()],
            )
            .context("cannot mark the memory superseded")?;
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
        self.release()?;
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
        self.release()?;
        let mut next = BTreeSet::new();
        for m in left {
            next.extend(Place::of(m).next(self.conn)?);
        }
        unembed(self.conn, &next.into_iter().collect::<Vec<_>>())
    }
}
