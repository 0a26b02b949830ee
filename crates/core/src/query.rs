//! What to recall: the query text, the filters, and the moment "now".

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::memory::{MemoryType, Source, Status};
use crate::time::Timestamp;

/// A recall request. Options grow here, not as new trait methods.
#[derive(Clone, Debug)]
pub struct Query<'a> {
    /// The task description or question.
    pub text: &'a str,
    /// Which memories may be recalled at all.
    pub filter: &'a Filter,
    /// The moment recency and decay are measured from.
    pub now: Timestamp,
    /// A point to rank memories by their distance from (the `spatial` ranker), if any.
    pub near: Option<&'a Near>,
}

impl<'a> Query<'a> {
    /// A query for `text` under `filter`, measured from the current time.
    pub fn new(text: &'a str, filter: &'a Filter) -> Query<'a> {
        Query {
            text,
            filter,
            now: Timestamp::now(),
            near: None,
        }
    }

    /// Ranks memories by their distance from `near` too (and, with a maximum distance, drops
    /// those farther away).
    pub fn near(mut self, near: &'a Near) -> Query<'a> {
        self.near = Some(near);
        self
    }

    /// Sets the moment recency and decay are measured from.
    pub fn now(mut self, now: Timestamp) -> Query<'a> {
        self.now = now;
        self
    }
}

/// Restrictions on which memories a query or listing may return. Empty means "no restriction",
/// except [`Filter::statuses`], which defaults to active memories only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Filter {
    /// Any of these types.
    pub types: Vec<MemoryType>,
    /// At least one of these tags.
    pub tags_any: Vec<String>,
    /// Every one of these tags.
    pub tags_all: Vec<String>,
    /// Exactly this namespace; `None` searches every namespace.
    pub namespace: Option<String>,
    /// Exactly this session ([`Memory::session`](crate::Memory::session)).
    pub session: Option<String>,
    /// Exactly this work item (bead).
    pub bead_id: Option<String>,
    /// Exactly this worker.
    pub worker_id: Option<String>,
    /// A confidence of at least this, in `[0, 1]`.
    pub min_confidence: Option<f64>,
    /// Any of these statuses; none means [`Status::Active`] alone.
    #[serde(default)]
    pub statuses: Vec<Status>,
    /// Superseded memories too, beside those of [`Filter::statuses`]: older versions of facts
    /// that changed, left out unless asked for.
    #[serde(default)]
    pub include_superseded: bool,
    /// Any of these sources.
    pub sources: Vec<Source>,
    /// Created at or after this time.
    pub created_after: Option<Timestamp>,
    /// Created before this time.
    pub created_before: Option<Timestamp>,
    /// Conditions on `metadata`, all of which must hold.
    pub metadata: Vec<MetaCondition>,
}

/// The most values a [`Filter`] takes in one list (types, tags, sources, metadata
/// conditions): far more than anyone writes by hand, few enough for any store's query
/// planner (SQLite refuses an expression of about 1,000 terms).
pub const MAX_FILTER_VALUES: usize = 100;

impl Filter {
    /// Checks that no list of the filter holds more than [`MAX_FILTER_VALUES`] values; stores
    /// call it before building a query.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the list that is
    /// too long.
    pub fn check(&self) -> Result<()> {
        let lists = [
            ("types", self.types.len()),
            ("tags to match any of", self.tags_any.len()),
            ("tags to match all of", self.tags_all.len()),
            ("sources", self.sources.len()),
            ("metadata conditions", self.metadata.len()),
        ];
        if let Some((what, n)) = lists.iter().find(|(_, n)| *n > MAX_FILTER_VALUES) {
            return Err(Error::invalid_input(format!(
                "the filter has {n} {what}; at most {MAX_FILTER_VALUES} are allowed"
            )));
        }
        match self.min_confidence {
            Some(c) if !(0.0..=1.0).contains(&c) => Err(Error::invalid_input(format!(
                "the minimum confidence must be a number between 0 and 1, got {c}"
            ))),
            _ => Ok(()),
        }
    }

    /// True when the filter restricts nothing but the status and the minimum confidence
    /// (what a store can check on each row of a ranking after the fact).
    pub fn is_status_only(&self) -> bool {
        self.types.is_empty()
            && self.tags_any.is_empty()
            && self.tags_all.is_empty()
            && self.namespace.is_none()
            && self.session.is_none()
            && self.bead_id.is_none()
            && self.worker_id.is_none()
            && self.sources.is_empty()
            && self.created_after.is_none()
            && self.created_before.is_none()
            && self.metadata.is_empty()
    }

    /// Whether a memory of `status` is one to match: one of [`Filter::statuses`] (active
    /// when none is set), or superseded with [`Filter::include_superseded`].
    pub fn matches_status(&self, status: Status) -> bool {
        let set = if self.statuses.is_empty() {
            status == Status::Active
        } else {
            self.statuses.contains(&status)
        };
        set || (self.include_superseded && status == Status::Superseded)
    }

    /// The statuses to match ([`Filter::matches_status`]), each once, in declaration order;
    /// never none.
    pub fn matched_statuses(&self) -> impl Iterator<Item = Status> + Clone + '_ {
        Status::ALL
            .iter()
            .copied()
            .filter(|&s| self.matches_status(s))
    }
}

/// A comparison on one metadata field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MetaOp {
    /// `==` (the form `{"a.b": 3}`).
    Eq,
    /// `$ne`
    Ne,
    /// `$lt`
    Lt,
    /// `$lte`
    Lte,
    /// `$gt`
    Gt,
    /// `$gte`
    Gte,
}

impl MetaOp {
    /// The SQL comparison operator.
    pub fn sql(self) -> &'static str {
        match self {
            MetaOp::Eq => "=",
            MetaOp::Ne => "<>",
            MetaOp::Lt => "<",
            MetaOp::Lte => "<=",
            MetaOp::Gt => ">",
            MetaOp::Gte => ">=",
        }
    }
}

/// `metadata.<path> <op> <value>`, e.g. `project.lang == "rust"` or `priority $gte 2`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaCondition {
    /// Dot-separated keys, each of letters, digits, `_` or `-`.
    pub path: String,
    /// The comparison.
    pub op: MetaOp,
    /// A string, number or boolean.
    pub value: Value,
}

impl MetaCondition {
    /// The JSON path for SQLite's `json_extract`, e.g. `$."project"."lang"`.
    pub fn json_path(&self) -> String {
        let mut p = String::from("$");
        for key in self.path.split('.') {
            p.push_str(".\"");
            p.push_str(key);
            p.push('"');
        }
        p
    }

    /// Parses a MongoDB-style filter object: `{"a.b": "x", "n": {"$gte": 2, "$lt": 5}}`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for text that is not a JSON
    /// object, a malformed path, an unknown `$` operator, or a value that is an array or object.
    pub fn parse_all(json: &str) -> Result<Vec<MetaCondition>> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| Error::invalid_input(format!("metadata filter is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(Error::invalid_input(
                "metadata filter must be a JSON object such as {\"lang\": \"rust\"}",
            ));
        };
        let mut out = Vec::new();
        for (path, v) in map {
            check_path(&path)?;
            match v {
                Value::Object(ops) => {
                    if ops.is_empty() {
                        return Err(Error::invalid_input(format!(
                            "metadata filter for {path:?} has no operator"
                        )));
                    }
                    for (op, value) in ops {
                        let op = match op.as_str() {
                            "$eq" => MetaOp::Eq,
                            "$ne" => MetaOp::Ne,
                            "$lt" => MetaOp::Lt,
                            "$lte" => MetaOp::Lte,
                            "$gt" => MetaOp::Gt,
                            "$gte" => MetaOp::Gte,
                            other => {
                                return Err(Error::invalid_input(format!(
                                    "unknown metadata operator {other:?} for {path:?}: use \
                                     $eq, $ne, $lt, $lte, $gt or $gte"
                                )))
                            }
                        };
                        out.push(MetaCondition::new(path.clone(), op, value)?);
                    }
                }
                value => out.push(MetaCondition::new(path, MetaOp::Eq, value)?),
            }
        }
        Ok(out)
    }

    /// Whether `metadata` meets the condition. Values of one type compare (a string with a
    /// string, a number with a number, a boolean with a boolean); a missing field, or one of
    /// another type, is unequal to everything and neither less nor greater. This is the
    /// definition every store's filter follows.
    pub fn holds(&self, metadata: &Map<String, Value>) -> bool {
        use std::cmp::Ordering;
        let order =
            metadata_field(metadata, &self.path).and_then(|field| match (field, &self.value) {
                (Value::String(a), Value::String(b)) => Some(a.as_str().cmp(b.as_str())),
                (Value::Number(a), Value::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
                (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
                _ => None,
            });
        match self.op {
            MetaOp::Eq => order == Some(Ordering::Equal),
            MetaOp::Ne => order != Some(Ordering::Equal),
            MetaOp::Lt => order == Some(Ordering::Less),
            MetaOp::Lte => matches!(order, Some(Ordering::Less | Ordering::Equal)),
            MetaOp::Gt => order == Some(Ordering::Greater),
            MetaOp::Gte => matches!(order, Some(Ordering::Greater | Ordering::Equal)),
        }
    }

    /// A checked condition.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for a malformed path or a
    /// value that is null, an array or an object.
    pub fn new(path: impl Into<String>, op: MetaOp, value: Value) -> Result<MetaCondition> {
        let path = path.into();
        check_path(&path)?;
        if !matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
            return Err(Error::invalid_input(format!(
                "metadata filter value for {path:?} must be a string, number or boolean, got {value}"
            )));
        }
        Ok(MetaCondition { path, op, value })
    }
}

/// The value at the dot-separated `path` of `metadata` (`spatial.object_position`), if there
/// is one.
pub fn metadata_field<'m>(metadata: &'m Map<String, Value>, path: &str) -> Option<&'m Value> {
    let mut keys = path.split('.');
    let mut v = metadata.get(keys.next()?)?;
    for key in keys {
        v = v.get(key)?;
    }
    Some(v)
}

/// A point to rank memories by: the Euclidean distance between it and the numeric array at
/// a metadata path of each memory (`--near spatial.object_position=0.1,0.2,0.3`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Near {
    /// The dot-separated metadata path of each memory's coordinates.
    pub path: String,
    /// The point's coordinates.
    pub point: Vec<f64>,
    /// Memories farther than this are not recalled; those without coordinates still are.
    pub max_distance: Option<f64>,
}

/// The most coordinates a [`Near`] point has.
pub const MAX_NEAR_DIMENSIONS: usize = 64;

impl Near {
    /// A checked point.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for a malformed path, no
    /// coordinates or more than [`MAX_NEAR_DIMENSIONS`], a coordinate that is not finite, or a
    /// maximum distance that is negative or not a number.
    pub fn new(
        path: impl Into<String>,
        point: Vec<f64>,
        max_distance: Option<f64>,
    ) -> Result<Near> {
        let path = path.into();
        check_path(&path)?;
        if point.is_empty() || point.len() > MAX_NEAR_DIMENSIONS {
            return Err(Error::invalid_input(format!(
                "a point needs 1 to {MAX_NEAR_DIMENSIONS} coordinates, got {}",
                point.len()
            )));
        }
        if let Some(x) = point.iter().find(|x| !x.is_finite()) {
            return Err(Error::invalid_input(format!(
                "the point's coordinates must be finite numbers, got {x}"
            )));
        }
        if let Some(d) = max_distance.filter(|d| !(d.is_finite() && *d >= 0.0)) {
            return Err(Error::invalid_input(format!(
                "the maximum distance must be a number of at least 0, got {d}"
            )));
        }
        Ok(Near {
            path,
            point,
            max_distance,
        })
    }

    /// Parses `PATH=x,y,z` (`spatial.object_position=0.1,0.2,0.3`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming what is wrong, as
    /// [`Near::new`].
    pub fn parse(spec: &str, max_distance: Option<f64>) -> Result<Near> {
        let Some((path, coordinates)) = spec.split_once('=') else {
            return Err(Error::invalid_input(format!(
                "{spec:?} is not PATH=x,y,z (a metadata path, then the point's coordinates, \
                 e.g. spatial.object_position=0.1,0.2,0.3)"
            )));
        };
        let point = coordinates
            .split(',')
            .map(|x| {
                x.trim().parse::<f64>().map_err(|_| {
                    Error::invalid_input(format!("{x:?} in {spec:?} is not a number (PATH=x,y,z)"))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        Near::new(path.trim(), point, max_distance)
    }

    /// The distance between the point and `metadata`'s coordinates at the path; `None` when
    /// the memory has none there, or they are not an array of as many finite numbers.
    pub fn distance(&self, metadata: &Map<String, Value>) -> Option<f64> {
        let Value::Array(xs) = metadata_field(metadata, &self.path)? else {
            return None;
        };
        if xs.len() != self.point.len() {
            return None;
        }
        let mut sum = 0.0;
        for (x, p) in xs.iter().zip(&self.point) {
            let x = x.as_f64().filter(|x| x.is_finite())?;
            sum += (x - p) * (x - p);
        }
        Some(sum.sqrt()).filter(|d| d.is_finite())
    }

    /// False only for a memory whose coordinates lie beyond the maximum distance.
    pub fn admits(&self, metadata: &Map<String, Value>) -> bool {
        match (self.max_distance, self.distance(metadata)) {
            (Some(max), Some(d)) => d <= max,
            _ => true,
        }
    }
}

fn check_path(path: &str) -> Result<()> {
    let ok = !path.is_empty()
        && path.split('.').all(|k| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        });
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "bad metadata path {path:?}: use dot-separated keys of letters, digits, _ or -"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_equality_and_operators() {
        let c = MetaCondition::parse_all(r#"{"project.lang": "rust", "n": {"$gte": 2, "$ne": 4}}"#)
            .unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].json_path(), r#"$."n""#);
        assert!(c
            .iter()
            .any(|c| c.op == MetaOp::Eq && c.path == "project.lang"));
    }

    #[test]
    fn rejects_bad_paths_operators_and_values() {
        for bad in [
            r#"{"a..b": 1}"#,
            r#"{"a'b": 1}"#,
            r#"{"a": {"$regex": "x"}}"#,
            r#"{"a": [1]}"#,
            r#"[1]"#,
            "not json",
        ] {
            assert!(MetaCondition::parse_all(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn near_parses_path_and_point_and_says_what_is_wrong() {
        let n = Near::parse("spatial.object_position=0.1, 0.2,-3", Some(2.0)).unwrap();
        assert_eq!(n.path, "spatial.object_position");
        assert_eq!(n.point, [0.1, 0.2, -3.0]);
        for (bad, says) in [
            ("spatial.object_position", "PATH=x,y,z"),
            ("pos=1,a", "\"a\""),
            ("pos=", "\"\""),
            ("=1,2", "bad metadata path"),
            ("a..b=1", "bad metadata path"),
            ("pos=1,inf", "finite"),
        ] {
            let err = Near::parse(bad, None).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        for d in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(Near::parse("pos=1", Some(d)).is_err(), "{d}");
        }
        let many = format!("pos={}", vec!["1"; MAX_NEAR_DIMENSIONS + 1].join(","));
        assert!(Near::parse(&many, None).is_err());
    }

    #[test]
    fn near_admits_what_is_close_or_has_no_coordinates() {
        let n = Near::parse("a.pos=0,0", Some(1.5)).unwrap();
        let meta = |v: Value| v.as_object().unwrap().clone();
        assert!(n.admits(&meta(serde_json::json!({"a": {"pos": [1, 1]}}))));
        assert!(!n.admits(&meta(serde_json::json!({"a": {"pos": [1, 2]}}))));
        assert!(n.admits(&meta(serde_json::json!({"a": {"pos": [1, "x"]}}))));
        assert!(n.admits(&meta(serde_json::json!({}))));
        assert_eq!(
            n.distance(&meta(serde_json::json!({"a": {"pos": [3.0, 4.0]}}))),
            Some(5.0)
        );
        let open = Near::parse("a.pos=0,0", None).unwrap();
        assert!(open.admits(&meta(serde_json::json!({"a": {"pos": [1e9, 1e9]}}))));
    }
}
