//! The vector index: every embedding quantized to `i8` and packed into chunks of
//! [`CHUNK_CAPACITY`] rows (`vector_chunks`), so that a k-nearest-neighbour query reads about
//! a hundred blobs rather than a hundred thousand rows, and a quarter of the bytes of `f32`.
//!
//! The exact `f32` vectors stay in `memories.embedding`; they are the source of truth, the
//! chunks can always be rebuilt from them ([`rebuild`]), and a search rescored from them is
//! exact (see [`Store::vector_candidates`](crate::Store::vector_candidates)).
//!
//! Chunk layout (little-endian): `ids` = `len × i64`, `scales` = `len × f32`,
//! `codes` = `len × dim × i8`. Removing a row moves the chunk's last row into its place.

use oro_mem_core::{Error, ErrorKind, MemoryId, Result};
use rusqlite::{params, Connection, OptionalExtension};

use crate::quant::{quantize, scan_i8, TopK};
use crate::store::SqlContext;

/// Rows per chunk. Appending rewrites the last chunk, so this bounds the write per insert
/// (`512 × 384` bytes of codes for MiniLM) while keeping a 100k-vector scan at ~200 blobs.
pub(crate) const CHUNK_CAPACITY: usize = 512;

/// Encodes `v` for `memories.embedding`.
pub(crate) fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Decodes a `memories.embedding` blob; `None` unless it holds exactly `dim` floats.
pub(crate) fn from_blob(blob: &[u8], dim: usize) -> Option<Vec<f32>> {
    (blob.len() == dim * 4).then(|| {
        blob.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    })
}

/// A chunk as read for rewriting; `id` 0 is a chunk not yet inserted.
#[derive(Default)]
struct Chunk {
    id: i64,
    ids: Vec<i64>,
    scales: Vec<f32>,
    codes: Vec<u8>,
}

impl Chunk {
    fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<Chunk> {
        let ids: Vec<u8> = row.get(1)?;
        let scales: Vec<u8> = row.get(2)?;
        Ok(Chunk {
            id: row.get(0)?,
            ids: ids
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect(),
            scales: scales
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
            codes: row.get(3)?,
        })
    }

    fn write(&self, conn: &Connection, model: &str, dim: usize) -> Result<()> {
        let ids: Vec<u8> = self.ids.iter().flat_map(|x| x.to_le_bytes()).collect();
        let scales: Vec<u8> = self.scales.iter().flat_map(|x| x.to_le_bytes()).collect();
        if self.ids.is_empty() {
            conn.execute("DELETE FROM vector_chunks WHERE id = ?1", [self.id])
                .context("cannot update the vector index")?;
        } else if self.id == 0 {
            conn.execute(
                "INSERT INTO vector_chunks (model, dim, len, ids, scales, codes) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    model,
                    dim as i64,
                    self.ids.len() as i64,
                    ids,
                    scales,
                    self.codes
                ],
            )
            .context("cannot update the vector index")?;
        } else {
            conn.execute(
                "UPDATE vector_chunks SET len = ?2, ids = ?3, scales = ?4, codes = ?5 \
                 WHERE id = ?1",
                params![self.id, self.ids.len() as i64, ids, scales, self.codes],
            )
            .context("cannot update the vector index")?;
        }
        Ok(())
    }

    fn swap_remove(&mut self, slot: usize, dim: usize) {
        let last = self.ids.len() - 1;
        self.ids.swap_remove(slot);
        self.scales.swap_remove(slot);
        if slot != last {
            self.codes
                .copy_within(last * dim..(last + 1) * dim, slot * dim);
        }
        self.codes.truncate(last * dim);
    }
}

/// Adds `(id, vector)` rows for `model`; vectors must be unit length and `dim` long.
pub(crate) fn append(
    conn: &Connection,
    model: &str,
    dim: usize,
    rows: &[(MemoryId, &[f32])],
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut chunk = conn
        .prepare_cached(
            "SELECT id, ids, scales, codes FROM vector_chunks \
             WHERE model = ?1 AND dim = ?2 AND len < ?3 ORDER BY id DESC LIMIT 1",
        )
        .and_then(|mut s| {
            s.query_row(
                params![model, dim as i64, CHUNK_CAPACITY as i64],
                Chunk::read,
            )
            .optional()
        })
        .context("cannot read the vector index")?
        .unwrap_or_default();
    for &(id, v) in rows {
        if v.len() != dim {
            return Err(Error::new(
                ErrorKind::Embedding,
                format!(
                    "embedding of memory {id} has {} values, expected {dim}",
                    v.len()
                ),
            ));
        }
        if chunk.ids.len() == CHUNK_CAPACITY {
            chunk.write(conn, model, dim)?;
            chunk = Chunk::default();
        }
        let q = quantize(v);
        chunk.ids.push(id);
        chunk.scales.push(q.scale);
        chunk.codes.extend(q.codes.iter().map(|&c| c as u8));
    }
    chunk.write(conn, model, dim)
}

/// Removes every row of `ids`, in any model. Deletions are rare (forget, consolidate,
/// re-embedding), so this reads the ids of every chunk rather than keeping a second index.
pub(crate) fn remove(conn: &Connection, ids: &[MemoryId]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut stmt = conn
        .prepare_cached("SELECT id, ids, model, dim FROM vector_chunks")
        .context("cannot read the vector index")?;
    let hits = stmt
        .query_map([], |row| {
            let blob = row.get_ref(1)?.as_blob()?;
            let has = blob
                .chunks_exact(8)
                .any(|b| ids.contains(&i64::from_le_bytes(b.try_into().expect("8 bytes"))));
            Ok(if has {
                Some((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                ))
            } else {
                None
            })
        })
        .context("cannot read the vector index")?
        .filter_map(|r| r.transpose())
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("cannot read the vector index")?;
    for (chunk_id, model, dim) in hits {
        let dim = usize::try_from(dim).unwrap_or(0);
        let mut chunk = conn
            .query_row(
                "SELECT id, ids, scales, codes FROM vector_chunks WHERE id = ?1",
                [chunk_id],
                Chunk::read,
            )
            .context("cannot read the vector index")?;
        while let Some(slot) = chunk.ids.iter().position(|x| ids.contains(x)) {
            chunk.swap_remove(slot, dim);
        }
        chunk.write(conn, &model, dim)?;
    }
    Ok(())
}

/// The `k` rows of `model` nearest to `query` by the quantized estimate: `(id, estimate)`,
/// best first. The estimate is within about 10⁻² of the cosine; callers rescore exactly.
pub(crate) fn search(
    conn: &Connection,
    model: &str,
    query: &[f32],
    k: usize,
) -> Result<Vec<(MemoryId, f32)>> {
    let q = quantize(query);
    let dim = query.len();
    let mut top = TopK::new(k);
    let mut scores = Vec::with_capacity(CHUNK_CAPACITY);
    let mut stmt = conn
        .prepare_cached(
            "SELECT ids, scales, codes FROM vector_chunks WHERE model = ?1 AND dim = ?2",
        )
        .context("cannot read the vector index")?;
    let mut rows = stmt
        .query(params![model, dim as i64])
        .context("cannot read the vector index")?;
    let corrupt = || {
        Error::new(
            ErrorKind::Storage,
            "the vector index is inconsistent; run `oro-mem embed --rebuild-index`",
        )
    };
    while let Some(row) = rows.next().context("cannot read the vector index")? {
        let blob = |i| -> Result<&[u8]> {
            row.get_ref(i)
                .and_then(|v| Ok(v.as_blob()?))
                .context("cannot read the vector index")
        };
        let (ids, scales, codes) = (blob(0)?, blob(1)?, blob(2)?);
        let n = ids.len() / 8;
        if ids.len() % 8 != 0 || scales.len() != n * 4 || codes.len() != n * dim {
            return Err(corrupt());
        }
        let scales: Vec<f32> = scales
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        let codes: &[i8] = bytemuck::cast_slice(codes);
        scan_i8(&q.codes, codes, &scales, &mut scores);
        for (&score, id) in scores.iter().zip(ids.chunks_exact(8)) {
            top.push(score, i64::from_le_bytes(id.try_into().expect("8 bytes")));
        }
    }
    Ok(top
        .into_sorted_vec()
        .into_iter()
        .map(|(score, id)| (id, score * q.scale))
        .collect())
}

/// Rebuilds every chunk from `memories.embedding`.
pub(crate) fn rebuild(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM vector_chunks", [])
        .context("cannot clear the vector index")?;
    let mut stmt = conn
        .prepare(
            "SELECT id, embedding_model, embedding_dim, embedding FROM memories \
             WHERE embedding IS NOT NULL ORDER BY embedding_model, embedding_dim, id",
        )
        .context("cannot read embeddings")?;
    let mut rows = stmt.query([]).context("cannot read embeddings")?;
    let mut pending: Vec<(MemoryId, Vec<f32>)> = Vec::new();
    let mut group: Option<(String, usize)> = None;
    let flush = |group: &Option<(String, usize)>, pending: &mut Vec<(MemoryId, Vec<f32>)>| {
        if let Some((model, dim)) = group {
            let rows: Vec<(MemoryId, &[f32])> =
                pending.iter().map(|(id, v)| (*id, v.as_slice())).collect();
            append(conn, model, *dim, &rows)?;
        }
        pending.clear();
        Ok::<(), Error>(())
    };
    while let Some(row) = rows.next().context("cannot read embeddings")? {
        let id: MemoryId = row.get(0).context("cannot read embeddings")?;
        let model: String = row.get(1).context("cannot read embeddings")?;
        let dim =
            usize::try_from(row.get::<_, i64>(2).context("cannot read embeddings")?).unwrap_or(0);
        let blob = row.get_ref(3).and_then(|v| Ok(v.as_blob()?));
        let Some(v) = blob.ok().and_then(|b| from_blob(b, dim)) else {
            continue;
        };
        if group.as_ref() != Some(&(model.clone(), dim)) || pending.len() == CHUNK_CAPACITY * 8 {
            flush(&group, &mut pending)?;
            group = Some((model, dim));
        }
        pending.push((id, v));
    }
    flush(&group, &mut pending)
}
