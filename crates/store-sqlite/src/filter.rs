//! [`Filter`] → a parameterized SQL `WHERE` fragment over `memories AS m`.

use oro_mem_core::{Filter, MetaOp, Result, Status};
use rusqlite::types::Value;
use serde_json::Value as Json;

/// SQL conditions joined by `AND`, with their parameters in order (`?` placeholders).
#[derive(Debug, Default)]
pub(crate) struct Where {
    pub(crate) sql: String,
    pub(crate) params: Vec<Value>,
}

impl Where {
    fn and(&mut self, cond: &str) {
        if !self.sql.is_empty() {
            self.sql.push_str(" AND ");
        }
        self.sql.push_str(cond);
    }

    fn placeholders(n: usize) -> String {
        vec!["?"; n].join(", ")
    }

    /// The conditions of `filter`. The status defaults to active.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) when a list of the
    /// filter is too long ([`Filter::check`]).
    pub(crate) fn from_filter(filter: &Filter) -> Result<Where> {
        filter.check()?;
        let mut w = Where::default();
        // One status as `=`, so that the usual plan does not change; more as `IN`.
        let statuses = filter.matched_statuses();
        w.and(&match statuses.clone().count() {
            1 => "m.status = ?".to_string(),
            n => format!("m.status IN ({})", Where::placeholders(n)),
        });
        w.params
            .extend(statuses.map(|s| Value::Text(s.as_str().into())));
        for (column, value) in [
            ("m.namespace", &filter.namespace),
            ("m.session", &filter.session),
            ("m.bead_id", &filter.bead_id),
            ("m.worker_id", &filter.worker_id),
        ] {
            if let Some(value) = value {
                w.and(&format!("{column} = ?"));
                w.params.push(Value::Text(value.clone()));
            }
        }
        if let Some(c) = filter.min_confidence {
            w.and("m.confidence >= ?");
            w.params.push(Value::Real(c));
        }
        if !filter.types.is_empty() {
            w.and(&format!(
                "m.type IN ({})",
                Where::placeholders(filter.types.len())
            ));
            w.params
                .extend(filter.types.iter().map(|t| Value::Text(t.as_str().into())));
        }
        if !filter.sources.is_empty() {
            w.and(&format!(
                "m.source IN ({})",
                Where::placeholders(filter.sources.len())
            ));
            w.params.extend(
                filter
                    .sources
                    .iter()
                    .map(|s| Value::Text(s.as_str().into())),
            );
        }
        if !filter.tags_any.is_empty() {
            w.and(&format!(
                "EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value IN ({}))",
                Where::placeholders(filter.tags_any.len())
            ));
            w.params
                .extend(filter.tags_any.iter().map(|t| Value::Text(t.clone())));
        }
        for tag in &filter.tags_all {
            w.and("EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)");
            w.params.push(Value::Text(tag.clone()));
        }
        if let Some(t) = filter.created_after {
            w.and("m.created_at >= ?");
            w.params.push(Value::Integer(t.as_second()));
        }
        if let Some(t) = filter.created_before {
            w.and("m.created_at < ?");
            w.params.push(Value::Integer(t.as_second()));
        }
        for cond in &filter.metadata {
            // `IS NOT` so that a missing field counts as "not equal", as in MongoDB.
            let op = match cond.op {
                MetaOp::Ne => "IS NOT",
                op => op.sql(),
            };
            w.and(&format!("json_extract(m.metadata, ?) {op} ?"));
            w.params.push(Value::Text(cond.json_path()));
            w.params.push(json_to_sql(&cond.value));
        }
        Ok(w)
    }
}

fn json_to_sql(v: &Json) -> Value {
    match v {
        Json::Bool(b) => Value::Integer(i64::from(*b)),
        Json::Number(n) => n
            .as_i64()
            .map(Value::Integer)
            .or_else(|| n.as_f64().map(Value::Real))
            .unwrap_or(Value::Null),
        Json::String(s) => Value::Text(s.clone()),
        _ => Value::Null,
    }
}

/// The statuses `filter` matches ([`Filter::matched_statuses`]) as four names, for a
/// prepared statement's `status IN (?, ?, ?, ?)`: each one matched, then the first again.
pub(crate) fn four_statuses(filter: &Filter) -> [&'static str; 4] {
    let mut matched = filter.matched_statuses().map(Status::as_str);
    let first = matched.next().unwrap_or(Status::Active.as_str());
    let mut four = [first; 4];
    for (slot, status) in four.iter_mut().skip(1).zip(matched) {
        *slot = status;
    }
    four
}
