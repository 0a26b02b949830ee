//! Building statements with bound parameters: [`Params`], and a [`Filter`] as a `WHERE`
//! fragment over `memories AS m`.

use oro_mem_core::{Filter, MetaOp, Result};
use postgres::types::ToSql;
use serde_json::Value as Json;

/// The parameters of one statement, numbered `$1`, `$2`, ... in the order they are added.
#[derive(Debug, Default)]
pub(crate) struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
}

impl Params {
    /// Adds `value` and returns its placeholder.
    pub(crate) fn add(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.values.push(Box::new(value));
        format!("${}", self.values.len())
    }

    /// The values, as the client takes them.
    pub(crate) fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|v| v.as_ref() as _).collect()
    }
}

/// The conditions of `filter` on `m`, joined by `AND`, their values added to `params`. The
/// status defaults to active.
///
/// Metadata conditions compare like values only: a string with a string (byte order, as the
/// SQLite store), a number with a number, a boolean with a boolean. A missing field, or one of
/// another type, is not equal to the value (`$ne` holds) and is neither less nor greater.
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) when a list of the filter
/// is too long ([`Filter::check`]).
pub(crate) fn filter_sql(filter: &Filter, params: &mut Params) -> Result<String> {
    filter.check()?;
    // One status as `=`, so that the usual plan does not change; more as `IN`.
    let statuses: Vec<String> = filter
        .matched_statuses()
        .map(|s| params.add(s.as_str().to_string()))
        .collect();
    let mut conds = vec![match statuses.as_slice() {
        [one] => format!("m.status = {one}"),
        more => format!("m.status IN ({})", more.join(", ")),
    }];
    for (column, value) in [
        ("m.namespace", &filter.namespace),
        ("m.session", &filter.session),
        ("m.bead_id", &filter.bead_id),
        ("m.worker_id", &filter.worker_id),
    ] {
        if let Some(value) = value {
            conds.push(format!("{column} = {}", params.add(value.clone())));
        }
    }
    if let Some(c) = filter.min_confidence {
        conds.push(format!("m.confidence >= {}", params.add(c)));
    }
    if !filter.types.is_empty() {
        let types: Vec<String> = filter.types.iter().map(|t| t.as_str().into()).collect();
        conds.push(format!("m.type = ANY({})", params.add(types)));
    }
    if !filter.sources.is_empty() {
        let sources: Vec<String> = filter.sources.iter().map(|s| s.as_str().into()).collect();
        conds.push(format!("m.source = ANY({})", params.add(sources)));
    }
    if !filter.tags_any.is_empty() {
        conds.push(format!("m.tags ?| {}", params.add(filter.tags_any.clone())));
    }
    if !filter.tags_all.is_empty() {
        conds.push(format!("m.tags ?& {}", params.add(filter.tags_all.clone())));
    }
    if let Some(t) = filter.created_after {
        conds.push(format!("m.created_at >= {}", params.add(t.as_second())));
    }
    if let Some(t) = filter.created_before {
        conds.push(format!("m.created_at < {}", params.add(t.as_second())));
    }
    for cond in &filter.metadata {
        let path: Vec<String> = cond.path.split('.').map(String::from).collect();
        let field = format!("(m.metadata #> {})", params.add(path));
        let (kind, value, cast) = match &cond.value {
            Json::String(s) => ("string", params.add(s.clone()), "#>> '{}' COLLATE \"C\""),
            Json::Bool(b) => ("boolean", params.add(*b), "::boolean"),
            Json::Number(n) => match n.as_f64() {
                Some(x) => ("number", params.add(x), "::float8"),
                None => ("number", params.add(f64::NAN), "::float8"),
            },
            // Conditions hold strings, numbers and booleans only (`MetaCondition::new`).
            _ => ("null", "NULL".to_string(), ""),
        };
        let compare =
            |op: &str| format!("(jsonb_typeof({field}) = '{kind}' AND {field}{cast} {op} {value})");
        conds.push(match cond.op {
            MetaOp::Ne => format!("NOT coalesce({}, false)", compare("=")),
            op => compare(op.sql()),
        });
    }
    Ok(conds.join(" AND "))
}
