//! [`Store`] as the core's store interface.

use oro_mem_core::store::{
    CandidateSearch, Commit, ListOrder, MemoryRead, MemoryStore, MemoryWrite, OtherMemory, Stats,
    ToEmbed, WriteTransaction,
};
use oro_mem_core::{Filter, Memory, MemoryId, Neighbour, Result, Status, Timestamp};

use crate::Store;

impl MemoryRead for Store {
    fn get(&self, id: MemoryId) -> Result<Memory> {
        Store::get(self, id)
    }

    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        Store::list(self, filter, order, limit, offset)
    }

    fn count(&self, filter: &Filter) -> Result<u64> {
        Store::count(self, filter)
    }

    fn count_up_to(&self, filter: &Filter, most: u64) -> Result<u64> {
        Store::count_up_to(self, filter, most)
    }
}

impl CandidateSearch for Store {
    fn lexical_candidates(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(Memory, f64)>> {
        Store::lexical_candidates(self, text, filter, depth)
    }

    fn lexical_scores(&self, text: &str, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        Store::lexical_scores(self, text, ids)
    }

    fn vector_candidates(
        &self,
        model: &str,
        query: &[f32],
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        Store::vector_candidates(self, model, query, filter, depth)
    }

    fn similarities(
        &self,
        model: &str,
        query: &[f32],
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, f64)>> {
        Store::similarities(self, model, query, ids)
    }

    fn session_neighbours(&self, memories: &[&Memory], window: usize) -> Result<Vec<Neighbour>> {
        Store::session_neighbours(self, memories, window)
    }

    fn count_unembedded(&self, model: &str) -> Result<u64> {
        Store::count_unembedded(self, model)
    }

    fn last_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<(Timestamp, String)>> {
        Store::last_in_session(self, namespace, session, at)
    }

    fn next_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        Store::next_in_session(self, namespace, session, at)
    }

    fn to_embed(&self, ids: &[MemoryId]) -> Result<Vec<ToEmbed>> {
        Store::to_embed(self, ids)
    }
}

impl MemoryWrite for Store {
    fn set_embeddings(&mut self, model: &str, made: &[(ToEmbed, Vec<f32>)]) -> Result<usize> {
        Store::set_embeddings(self, model, made)
    }

    fn claim_unembedded(
        &mut self,
        model: &str,
        after: MemoryId,
        limit: usize,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<ToEmbed>> {
        Store::claim_unembedded(self, model, after, limit, now, until)
    }

    fn forget(&mut self, id: MemoryId) -> Result<Vec<MemoryId>> {
        Store::forget(self, id)
    }

    fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()> {
        Store::set_pinned(self, id, pinned)
    }

    fn set_status(&mut self, id: MemoryId, status: Status) -> Result<Vec<MemoryId>> {
        Store::set_status(self, id, status)
    }

    fn record_returned(&mut self, ids: &[MemoryId]) -> Result<()> {
        Store::record_returned(self, ids)
    }

    fn record_used(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        Store::record_used(self, ids, now)
    }

    fn transact(
        &mut self,
        work: &mut dyn FnMut(&mut dyn WriteTransaction) -> Result<Commit>,
    ) -> Result<()> {
        Store::transact(self, work)
    }
}

impl MemoryStore for Store {
    fn location(&self) -> String {
        self.path()
            .map_or_else(|| ":memory:".to_string(), |p| p.display().to_string())
    }

    fn stay_warm(&mut self) {
        self.set_warm(true);
    }

    fn let_go(&mut self) -> Result<()> {
        Store::let_go(self)
    }

    fn is_read_only(&self) -> bool {
        Store::is_read_only(self)
    }

    fn for_each(&self, filter: &Filter, f: &mut dyn FnMut(Memory) -> Result<()>) -> Result<u64> {
        Store::for_each(self, filter, f)
    }

    fn for_each_embedded(&self, f: &mut dyn FnMut(OtherMemory) -> Result<()>) -> Result<u64> {
        Store::for_each_embedded(self, f)
    }

    fn stats(&self) -> Result<Stats> {
        Store::stats(self)
    }

    fn rebuild_index(&mut self) -> Result<()> {
        Store::rebuild_index(self)
    }
}
