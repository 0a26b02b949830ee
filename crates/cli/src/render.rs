//! Rendering recalled memories as text, a prompt section, or JSON.

use std::fmt::Write as _;

use oro_mem_core::{Memory, Timestamp};
use oro_mem_engine::{Abstention, Recall, Recalled};

/// One line, for places that need one: newlines and runs of whitespace become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a memory that does not take part in recall is, for a reader who asked for it
/// (`--include-superseded`, `--status`): `superseded by 4`, `merged into 7`, `archived`;
/// `None` for an active one. A superseded memory is an older state of a fact, and an agent
/// given it must not take it for the current one.
fn status_note(m: &Memory) -> Option<String> {
    use oro_mem_core::Status;
    match (m.status, m.superseded_by, m.merged_into) {
        (Status::Active, ..) => None,
        (Status::Superseded, Some(by), _) => Some(format!("superseded by {by}")),
        (Status::Merged, _, Some(into)) => Some(format!("merged into {into}")),
        (status, ..) => Some(status.as_str().to_string()),
    }
}

/// The `## Relevant Memories` section: one line per memory,
/// `- [type] content (confidence: 0.8, age: 3d)`, and `[type; superseded by 4]` for a
/// memory that is no longer active ([`status_note`]). Empty when there are no results.
pub fn prompt(results: &[Recalled], now: Timestamp) -> String {
    prompt_of(results.iter().map(|r| &r.memory), now)
}

/// [`prompt`] for memories in any order (a session replayed, say).
pub fn prompt_of<'m>(memories: impl IntoIterator<Item = &'m Memory>, now: Timestamp) -> String {
    let mut memories = memories.into_iter().peekable();
    if memories.peek().is_none() {
        return String::new();
    }
    let mut out = String::from("## Relevant Memories\n");
    for m in memories {
        let _ = writeln!(
            out,
            "- [{}{}] {} (confidence: {}, age: {})",
            m.memory_type,
            status_note(m).map_or_else(String::new, |n| format!("; {n}")),
            one_line(&m.content),
            trim_float(m.confidence),
            m.created_at.age(now)
        );
    }
    out
}

/// `0.8` rather than `0.80`, `0.95` rather than `0.9500`.
fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A numbered list; with `explain`, each ranker's rank and contribution and the factors.
pub fn text(results: &[Recalled], explain: bool, now: Timestamp) -> String {
    let mut out = String::new();
    for (i, r) in results.iter().enumerate() {
        let m = &r.memory;
        let _ = writeln!(
            out,
            "{}. [{}] {}  (score {:.2}, id {}{}{})",
            i + 1,
            m.memory_type,
            one_line(&m.content),
            r.score,
            m.id,
            status_note(m).map_or_else(String::new, |n| format!(", {n}")),
            if r.truncated { ", truncated" } else { "" }
        );
        if explain {
            for l in &r.lists {
                let rank = l.rank.map_or_else(|| "-".to_string(), |r| r.to_string());
                let _ = writeln!(
                    out,
                    "     {:<8} rank {:>4}  weight {:<4} contribution {:.6}",
                    l.name,
                    rank,
                    trim_float(l.weight),
                    l.contribution
                );
            }
            for b in &r.boosts {
                let _ = writeln!(
                    out,
                    "     boost    x{} (recall.boost {}: {})",
                    trim_float(b.factor),
                    b.rule,
                    b.condition
                );
            }
            let _ = writeln!(
                out,
                "     fused {:.6} x confidence {:.2} x decay {:.3} (age {}{}) = {:.6}",
                r.fused,
                r.confidence,
                r.decay,
                m.created_at.age(now),
                if m.pinned { ", pinned" } else { "" },
                r.raw_score
            );
            if let Some(p) = r.probability {
                let features: Vec<String> = r
                    .features
                    .iter()
                    .map(|(n, v)| format!("{n} {v:.3}"))
                    .collect();
                let _ = writeln!(
                    out,
                    "     estimated relevance {p:.3} from {}",
                    features.join(", ")
                );
            }
            if let Some(n) = &r.named {
                let _ = writeln!(
                    out,
                    "     kept below the relevance bar: it names `{n}`, as the query does \
                     (recall.keep_named)"
                );
            }
            match (r.similar, r.similar_next) {
                (Some(cosine), Some(next)) => {
                    let _ = writeln!(
                        out,
                        "     kept below the relevance bar: nothing reached it, and this memory \
                         is the nearest in meaning (cosine {cosine:.2}), far nearer than any \
                         other ({next:.2} or less: recall.keep_similar)"
                    );
                }
                (Some(cosine), None) => {
                    let _ = writeln!(
                        out,
                        "     kept below the relevance bar: nothing reached it, and this memory \
                         is the nearest in meaning (cosine {cosine:.2}, more than unrelated ones \
                         reach in a store this size: recall.keep_similar)"
                    );
                }
                (None, _) => {}
            }
        }
    }
    out
}

/// For `--explain`: how many candidates each stage kept, so an empty or short answer says why.
pub fn funnel(recall: &Recall, min_similarity: f64) -> String {
    let mut s = format!("{} candidates", recall.candidates);
    if let Some(Abstention::BelowConfidence {
        memories,
        min_confidence,
    }) = &recall.abstained
    {
        let _ = write!(
            s,
            " ({memories} more below the minimum confidence {})",
            trim_float(*min_confidence)
        );
    }
    if recall.dissimilar > 0 {
        let _ = write!(
            s,
            ", {} dropped (no query word, cosine < {})",
            recall.dissimilar,
            trim_float(min_similarity)
        );
    }
    if recall.too_far > 0 {
        let _ = write!(
            s,
            ", {} farther than --max-distance from the point",
            recall.too_far
        );
    }
    let _ = write!(s, ", {} above the minimum score", recall.above_threshold);
    if let Some(a) = recall.answerable {
        let _ = write!(
            s,
            ", {} estimated chance the store holds anything about the query \
             (recall.answerable)",
            oro_mem_engine::Estimate(a)
        );
    }
    if recall.below_relevance > 0 {
        let _ = write!(
            s,
            ", {} below the relevance bar (recall.min_relevance)",
            recall.below_relevance
        );
    }
    if recall.unsure > 0 {
        let _ = write!(
            s,
            ", {} withheld (the best below recall.abstain_below)",
            recall.unsure
        );
    }
    let _ = write!(
        s,
        ", {} shown (count, budget, near-duplicates)",
        recall.results.len()
    );
    s
}

/// A memory in full, for `memories show`.
/// The versions of a fact, oldest first (from `versions` in main), the one shown (`shown`)
/// marked: each with its id, when it was stored, its status and its first line.
pub fn versions(versions: &[Memory], shown: i64) -> String {
    let mut out = String::from("versions:      oldest first\n");
    for v in versions {
        let first = v.content.lines().next().unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {:>5}  {}  {:<10}  {}",
            if v.id == shown { "*" } else { " " },
            v.id,
            v.created_at,
            v.status.as_str(),
            clip(first, 80)
        );
    }
    out
}

pub fn memory_details(m: &Memory, now: Timestamp) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "id:            {}", m.id);
    let _ = writeln!(out, "type:          {}", m.memory_type);
    let _ = writeln!(
        out,
        "status:        {}{}",
        m.status,
        if m.pinned { ", pinned" } else { "" }
    );
    if let Some(into) = m.merged_into {
        let _ = writeln!(
            out,
            "merged into:   {into} (`oro-mem memories restore {}` undoes it)",
            m.id
        );
    }
    if let Some(by) = m.superseded_by {
        let _ = writeln!(
            out,
            "superseded by: {by}{} (`oro-mem memories restore {}` undoes it)",
            m.superseded_at
                .map(|t| format!(" on {t}"))
                .unwrap_or_default(),
            m.id
        );
    }
    let _ = writeln!(out, "namespace:     {}", m.namespace);
    let _ = writeln!(out, "tags:          {}", m.tags.join(", "));
    if let Some(summary) = &m.summary {
        let _ = writeln!(out, "summary:       {summary}");
    }
    if !m.files.is_empty() {
        let _ = writeln!(out, "files:         {}", m.files.join(", "));
    }
    if !m.entities.is_empty() {
        let _ = writeln!(out, "entities:      {}", m.entities.join(", "));
    }
    let _ = writeln!(out, "source:        {}", m.source);
    let _ = writeln!(out, "confidence:    {}", trim_float(m.confidence));
    let _ = writeln!(
        out,
        "created:       {} ({} ago)",
        m.created_at,
        m.created_at.age(now)
    );
    let _ = writeln!(out, "updated:       {}", m.updated_at);
    let _ = writeln!(
        out,
        "returned:      {} times by recall\nused:          {} times{}",
        m.return_count,
        m.access_count,
        m.last_accessed
            .map(|t| format!(", last {t}"))
            .unwrap_or_default()
    );
    if let Some(b) = &m.bead_id {
        let _ = writeln!(out, "bead:          {b}");
    }
    if let Some(w) = &m.worker_id {
        let _ = writeln!(out, "worker:        {w}");
    }
    if let Some(s) = &m.session {
        let _ = writeln!(out, "session:       {s}");
    }
    if !m.metadata.is_empty() {
        let _ = writeln!(
            out,
            "metadata:      {}",
            serde_json::Value::Object(m.metadata.clone())
        );
    }
    let _ = writeln!(out, "\n{}", m.content);
    out
}

/// A memory's content on one line, cut to 80 characters, in quotes: what a message names it
/// by.
pub fn quoted(m: &Memory) -> String {
    format!("\"{}\"", clip(&one_line(&m.content), 80))
}

/// `text`, cut to at most `width` characters with `…` ending it when it was longer.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() > width {
        text.chars().take(width - 1).collect::<String>() + "…"
    } else {
        text.to_string()
    }
}

/// One line per memory for `memories list`.
pub fn list_line(m: &Memory, now: Timestamp) -> String {
    let content = clip(&one_line(&m.content), 100);
    format!(
        "{:>6}  {:<10} {:>4}  {:>5}  {}{}{}",
        m.id,
        m.memory_type.as_str(),
        trim_float(m.confidence),
        m.created_at.age(now),
        if m.pinned { "📌 " } else { "" },
        content,
        status_note(m).map_or_else(String::new, |n| format!("  ({n})"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_float_drops_trailing_zeros() {
        assert_eq!(trim_float(0.8), "0.8");
        assert_eq!(trim_float(1.0), "1");
        assert_eq!(trim_float(0.95), "0.95");
    }
}
