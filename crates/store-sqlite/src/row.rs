//! Mapping between `memories` rows and [`Memory`].

use oro_mem_core::memory::MAX_ACCESS_COUNT;
use oro_mem_core::{Memory, Timestamp};
use rusqlite::types::{Type, ValueRef};
use rusqlite::Row;

/// The columns [`memory_from_row`] reads, in order, qualified with `m.`.
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.content, m.type, m.tags, m.source, m.bead_id, \
     m.worker_id, m.namespace, m.metadata, m.confidence, m.pinned, m.status, m.created_at, \
     m.updated_at, m.access_count, m.last_accessed, m.session, m.summary, m.files, m.entities, \
     m.return_count, m.merged_into, m.superseded_by, m.superseded_at";

/// Number of columns in [`MEMORY_COLUMNS`].
pub(crate) const MEMORY_COLUMN_COUNT: usize = 24;

fn conversion<E>(col: usize, ty: Type) -> impl FnOnce(E) -> rusqlite::Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    move |e| rusqlite::Error::FromSqlConversionFailure(col, ty, Box::new(e))
}

/// An access (or return) count as stored, in `[0, MAX_ACCESS_COUNT]`: a value of another type (a REAL
/// left by an overflow in an older version) is read as the nearest count, never an error, so
/// that one bad row cannot stop reads of the others (migration 4 repairs such rows).
fn access_count(v: ValueRef<'_>) -> u64 {
    let n = match v {
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(r) if r.is_finite() => r,
        ValueRef::Real(r) if r > 0.0 => f64::INFINITY,
        _ => 0.0,
    };
    n.clamp(0.0, MAX_ACCESS_COUNT as f64) as u64
}

/// Reads a [`Memory`] from a row selected with [`MEMORY_COLUMNS`] first.
pub(crate) fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    let text = |i: usize| row.get::<_, String>(i);
    Ok(Memory {
        id: row.get(0)?,
        content: text(1)?,
        memory_type: text(2)?.parse().map_err(conversion(2, Type::Text))?,
        tags: serde_json::from_str(&text(3)?).map_err(conversion(3, Type::Text))?,
        source: text(4)?.parse().map_err(conversion(4, Type::Text))?,
        bead_id: row.get(5)?,
        worker_id: row.get(6)?,
        session: row.get(16)?,
        namespace: text(7)?,
        summary: row.get(17)?,
        files: serde_json::from_str(&text(18)?).map_err(conversion(18, Type::Text))?,
        entities: serde_json::from_str(&text(19)?).map_err(conversion(19, Type::Text))?,
        metadata: serde_json::from_str(&text(8)?).map_err(conversion(8, Type::Text))?,
        confidence: row.get(9)?,
        pinned: row.get(10)?,
        status: text(11)?.parse().map_err(conversion(11, Type::Text))?,
        merged_into: row.get(21)?,
        superseded_by: row.get(22)?,
        superseded_at: row.get::<_, Option<i64>>(23)?.map(Timestamp),
        created_at: Timestamp(row.get(12)?),
        updated_at: Timestamp(row.get(13)?),
        return_count: access_count(row.get_ref(20)?),
        access_count: access_count(row.get_ref(14)?),
        last_accessed: row.get::<_, Option<i64>>(15)?.map(Timestamp),
    })
}
