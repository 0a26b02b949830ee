//! The vector index's arithmetic: sign bits and the scans over them (Hamming distance,
//! [`SignScorer`]), the exact `f32` dot product, the best-k heap, and the scalar quantization
//! of unit vectors to `i8` that chunks still keep.
//!
//! A vector `v` is quantized to codes `c[i] = round(v[i] / s)` with `s = max|v[i]| / 127`, so
//! `v · w ≈ s_v · s_w · (c_v · c_w)`; the sign of each code is the sign of its component
//! (except those that rounded to 0), which is what the bits of a chunk written before schema
//! version 7 are made from.
//!
//! The scans are compiled for AVX2 (and POPCNT) as well as the baseline, and pick the best
//! the CPU has at run time (the `multiversion` crate).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use multiversion::multiversion;

/// `v` quantized: `v ≈ scale × codes`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantized {
    /// The step between adjacent codes.
    pub scale: f32,
    /// One code per dimension, in `-127..=127`.
    pub codes: Vec<i8>,
}

/// Quantizes `v` with a per-vector scale. A zero (or non-finite) vector gets scale 0 and
/// zero codes, so it matches nothing.
pub fn quantize(v: &[f32]) -> Quantized {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !v.iter().all(|x| x.is_finite()) {
        return Quantized {
            scale: 0.0,
            codes: vec![0; v.len()],
        };
    }
    let scale = max / 127.0;
    let codes = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    Quantized { scale, codes }
}

/// Dot product of two `f32` vectors of equal length: core's [`dot`](oro_mem_core::store::dot)
/// (8 lanes, a fixed order of sums, so every store scores alike), compiled here for each SIMD
/// target.
#[multiversion(targets("x86_64+avx2+fma", "x86_64+sse4.1", "aarch64+neon"))]
pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    oro_mem_core::store::dot(a, b)
}

/// The sign bits of `v`, packed: bit `i % 8` of byte `i / 8` is set when `v[i] > 0`, the
/// rest of the last byte is 0. For unit vectors the share of bits two codes differ in
/// estimates the angle between them over π, so the Hamming distance orders rows roughly as
/// the cosine does, at 1/32 of the bytes of `f32`; a search keeps a generous number of the
/// nearest by bits and scores only those exactly.
pub fn sign_bits(v: &[f32]) -> Vec<u8> {
    pack_signs(v.iter().map(|x| *x > 0.0), v.len())
}

/// [`sign_bits`] of an `i8` code vector (the same signs as the vector it quantizes, except
/// components that rounded to 0).
pub fn sign_bits_i8(codes: &[i8]) -> Vec<u8> {
    pack_signs(codes.iter().map(|c| *c > 0), codes.len())
}

/// `len` flags packed 8 to a byte, the first in the lowest bit.
fn pack_signs(positive: impl Iterator<Item = bool>, len: usize) -> Vec<u8> {
    let mut bits = vec![0u8; len.div_ceil(8)];
    for (i, _) in positive.enumerate().filter(|(_, p)| *p) {
        bits[i / 8] |= 1 << (i % 8);
    }
    bits
}

/// Hamming distances between `query` and the `bits.len() / query.len()` packed rows laid out
/// one after another in `bits`, into `out` (cleared first).
///
/// # Panics
///
/// If `bits` does not hold a whole number of rows of `query.len()` bytes.
#[multiversion(targets("x86_64+avx2+popcnt", "x86_64+popcnt", "aarch64+neon"))]
pub fn scan_hamming(query: &[u8], bits: &[u8], out: &mut Vec<u32>) {
    let width = query.len();
    out.clear();
    if width == 0 {
        return;
    }
    assert_eq!(bits.len() % width, 0, "bits hold whole rows");
    let words = width / 8;
    let q: Vec<u64> = query
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let tail = &query[words * 8..];
    out.extend(bits.chunks_exact(width).map(|row| {
        let mut d: u32 = row
            .chunks_exact(8)
            .zip(&q)
            .map(|(b, q)| (u64::from_le_bytes(b.try_into().expect("8 bytes")) ^ q).count_ones())
            .sum();
        for (a, b) in row[words * 8..].iter().zip(tail) {
            d += (a ^ b).count_ones();
        }
        d
    }));
}

/// Scores packed sign bits against an `f32` query without unpacking them: the dot product of
/// the query with the row's signs (each component `±1`), `Σ q[i] × sign(row[i])`. It keeps
/// the query exact, so it orders rows much as the cosine does, better than the Hamming
/// distance; a table of the 256 sums of each byte's eight components makes it one lookup per
/// byte.
#[derive(Clone, Debug)]
pub struct SignScorer {
    width: usize,
    /// `width × 256` partial sums: entry `[j][b]` is the sum over the set bits `i` of `b` of
    /// `q[8j + i]`, minus the sum over its clear bits.
    table: Vec<f32>,
}

impl SignScorer {
    /// The table for `query`.
    pub fn new(query: &[f32]) -> SignScorer {
        let width = query.len().div_ceil(8);
        let mut table = vec![0.0f32; width * 256];
        for (j, sums) in table.chunks_exact_mut(256).enumerate() {
            let part = &query[j * 8..(j * 8 + 8).min(query.len())];
            for (b, sum) in sums.iter_mut().enumerate() {
                *sum = part
                    .iter()
                    .enumerate()
                    .map(|(i, q)| if b & (1 << i) != 0 { *q } else { -*q })
                    .sum();
            }
        }
        SignScorer { width, table }
    }

    /// The score of one packed row of [`sign_bits`].
    pub fn score(&self, row: &[u8]) -> f32 {
        row[..self.width]
            .iter()
            .zip(self.table.chunks_exact(256))
            .map(|(&b, sums)| sums[usize::from(b)])
            .sum()
    }
}

/// The `k` best `(score, id)` pairs seen so far.
///
/// Keeps a min-heap of size `k`, so offering `n` items costs `O(n log k)` and almost always
/// only one comparison. Ties keep the item offered first. NaN scores are ignored.
#[derive(Clone, Debug)]
pub struct TopK<T> {
    k: usize,
    heap: BinaryHeap<Entry<T>>,
    seq: u64,
}

#[derive(Clone, Debug)]
struct Entry<T> {
    score: f32,
    seq: u64,
    item: T,
}

// The heap's top is the *worst* entry: lowest score, then latest offered.
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.seq.cmp(&other.seq))
    }
}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T> Eq for Entry<T> {}

impl<T> TopK<T> {
    /// Keeps the best `k`.
    pub fn new(k: usize) -> TopK<T> {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.saturating_add(1).min(1 << 16)),
            seq: 0,
        }
    }

    /// The lowest score that would still be kept, once `k` items are held.
    pub fn threshold(&self) -> Option<f32> {
        (self.heap.len() == self.k)
            .then(|| self.heap.peek().map(|e| e.score))
            .flatten()
    }

    /// Offers an item.
    pub fn push(&mut self, score: f32, item: T) {
        if self.k == 0 || score.is_nan() {
            return;
        }
        if let Some(t) = self.threshold() {
            if score <= t {
                return;
            }
        }
        self.seq += 1;
        self.heap.push(Entry {
            score,
            seq: self.seq,
            item,
        });
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    /// Number of items held.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The items, best first.
    pub fn into_sorted_vec(self) -> Vec<(f32, T)> {
        // `into_sorted_vec` is ascending by `Ord`, which is worst-last here.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|e| (e.score, e.item))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn normalize(v: &mut [f32]) {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
    }

    #[test]
    fn quantize_round_trips_within_half_a_step() {
        let v = [0.5f32, -0.25, 0.125, 0.0];
        let q = quantize(&v);
        assert!((q.scale - 0.5 / 127.0).abs() < 1e-9);
        assert_eq!(q.codes[0], 127);
        assert_eq!(q.codes[1], -64);
        for (x, c) in v.iter().zip(&q.codes) {
            assert!((x - q.scale * f32::from(*c)).abs() <= q.scale / 2.0 + 1e-7);
        }
        assert_eq!(quantize(&[0.0, 0.0]).scale, 0.0);
        assert_eq!(quantize(&[f32::NAN, 1.0]).codes, vec![0, 0]);
    }

    #[test]
    fn top_k_keeps_the_best_in_order_and_first_of_ties() {
        let mut top = TopK::new(3);
        for (s, id) in [
            (0.1, 1),
            (0.9, 2),
            (0.5, 3),
            (0.9, 4),
            (0.2, 5),
            (f32::NAN, 6),
        ] {
            top.push(s, id);
        }
        assert_eq!(top.threshold(), Some(0.5));
        let got: Vec<_> = top
            .into_sorted_vec()
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        assert_eq!(got, vec![2, 4, 3]);
        let mut none = TopK::new(0);
        none.push(1.0, ());
        assert!(none.is_empty());
    }

    fn unit(dim: usize) -> impl Strategy<Value = Vec<f32>> {
        prop::collection::vec(-1.0f32..1.0, dim).prop_map(|mut v| {
            normalize(&mut v);
            v
        })
    }

    proptest! {
        /// The other stores score with core's `dot`: the same sums in the same order, so the
        /// same scores to the last bit, whichever SIMD target runs here.
        #[test]
        fn the_dot_product_is_cores_to_the_bit(a in unit(384), b in unit(384), n in 0usize..384) {
            prop_assert_eq!(
                dot_f32(&a[..n], &b[..n]).to_bits(),
                oro_mem_core::store::dot(&a[..n], &b[..n]).to_bits()
            );
        }

        #[test]
        fn kernels_agree_with_plain_arithmetic(a in unit(37), b in unit(37)) {
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            prop_assert!((dot_f32(&a, &b) - exact).abs() < 1e-5);

            let (qa, qb) = (quantize(&a), quantize(&b));
            let plain: i32 = qa.codes.iter().zip(&qb.codes).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();

            // The quantized estimate is close to the exact dot product.
            let estimate = qa.scale * qb.scale * plain as f32;
            prop_assert!((estimate - exact).abs() < 0.02, "{} vs {}", estimate, exact);
        }

        #[test]
        fn hamming_counts_the_signs_that_differ(a in unit(77), b in unit(77)) {
            let (ba, bb) = (sign_bits(&a), sign_bits(&b));
            let plain = a.iter().zip(&b).filter(|(x, y)| (**x > 0.0) != (**y > 0.0)).count();
            let mut out = Vec::new();
            let rows: Vec<u8> = bb.iter().chain(&ba).copied().collect();
            scan_hamming(&ba, &rows, &mut out);
            prop_assert_eq!(out, vec![plain as u32, 0]);
            prop_assert_eq!(sign_bits_i8(&quantize(&a).codes).len(), ba.len());
            let signed: f32 = a.iter().zip(&b).map(|(q, x)| if *x > 0.0 { *q } else { -*q }).sum();
            prop_assert!((SignScorer::new(&a).score(&bb) - signed).abs() < 1e-4);
        }

        #[test]
        fn top_k_equals_sorting(scores in prop::collection::vec(-10.0f32..10.0, 0..200), k in 0usize..20) {
            let mut top = TopK::new(k);
            for (i, s) in scores.iter().enumerate() {
                top.push(*s, i);
            }
            let mut sorted: Vec<(f32, usize)> = scores.iter().copied().zip(0..).collect();
            sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            sorted.truncate(k);
            prop_assert_eq!(top.into_sorted_vec(), sorted);
        }
    }
}
