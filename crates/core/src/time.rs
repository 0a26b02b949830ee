//! Timestamps: whole seconds since the Unix epoch, shown as RFC 3339.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// Seconds per day, for decay and age arithmetic.
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// A point in time, in whole seconds since the Unix epoch (UTC).
///
/// Stored as an integer; serialized and displayed as RFC 3339 (`2024-05-01T12:00:00Z`).
/// Parsing accepts RFC 3339, a plain date (`2024-05-01`, midnight UTC) or an integer number of
/// seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time.
    pub fn now() -> Timestamp {
        Timestamp(jiff::Timestamp::now().as_second())
    }

    /// Seconds since the Unix epoch.
    pub fn as_second(self) -> i64 {
        self.0
    }

    /// Days from `self` to `later`, never negative.
    pub fn days_until(self, later: Timestamp) -> f64 {
        (later.0.saturating_sub(self.0)).max(0) as f64 / SECONDS_PER_DAY
    }

    /// A short human age such as `3d`, `5h`, `2mo` relative to `now`.
    pub fn age(self, now: Timestamp) -> String {
        let secs = now.0.saturating_sub(self.0).max(0);
        match secs {
            s if s < 3_600 => format!("{}m", s / 60),
            s if s < 86_400 => format!("{}h", s / 3_600),
            s if s < 86_400 * 60 => format!("{}d", s / 86_400),
            s if s < 86_400 * 730 => format!("{}mo", s / (86_400 * 30)),
            s => format!("{}y", s / (86_400 * 365)),
        }
    }

    /// Parses a point in time, or a span back from `now` such as `7d`, `12h`, `30m`, `2w`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) when the text is none of
    /// the accepted forms.
    pub fn parse_relative(text: &str, now: Timestamp) -> Result<Timestamp> {
        let t = text.trim();
        if let Some(unit) = t.chars().last().filter(|c| c.is_ascii_alphabetic()) {
            let number = &t[..t.len() - unit.len_utf8()];
            if let Ok(n) = number.parse::<u32>() {
                let per = match unit {
                    'm' => 60,
                    'h' => 3_600,
                    'd' => 86_400,
                    'w' => 7 * 86_400,
                    _ => 0,
                };
                if per > 0 {
                    return Ok(Timestamp(now.0 - i64::from(n) * per));
                }
            }
        }
        t.parse()
    }
}

impl FromStr for Timestamp {
    type Err = Error;

    fn from_str(s: &str) -> Result<Timestamp> {
        let t = s.trim();
        if let Ok(n) = t.parse::<i64>() {
            return Ok(Timestamp(n));
        }
        if let Ok(ts) = t.parse::<jiff::Timestamp>() {
            return Ok(Timestamp(ts.as_second()));
        }
        if let Ok(dt) = t.parse::<jiff::civil::DateTime>() {
            if let Ok(z) = dt.to_zoned(jiff::tz::TimeZone::UTC) {
                return Ok(Timestamp(z.timestamp().as_second()));
            }
        }
        if let Ok(d) = t.parse::<jiff::civil::Date>() {
            if let Ok(z) = d.to_zoned(jiff::tz::TimeZone::UTC) {
                return Ok(Timestamp(z.timestamp().as_second()));
            }
        }
        Err(Error::invalid_input(format!(
            "cannot read {s:?} as a time: use RFC 3339 (2024-05-01T12:00:00Z), a date \
             (2024-05-01), seconds since 1970, or a span such as 7d"
        )))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match jiff::Timestamp::from_second(self.0) {
            Ok(ts) => write!(f, "{ts}"),
            Err(_) => write!(f, "{}", self.0),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Text(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Int(n) => Ok(Timestamp(n)),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_round_trips_through_rfc3339() {
        let t: Timestamp = "2024-05-01T12:00:00Z".parse().unwrap();
        assert_eq!(t.to_string(), "2024-05-01T12:00:00Z");
        assert_eq!(
            "2024-05-01".parse::<Timestamp>().unwrap().0,
            t.0 - 12 * 3600
        );
        assert_eq!("1714564800".parse::<Timestamp>().unwrap(), t);
    }

    #[test]
    fn relative_spans_count_back_from_now() {
        let now = Timestamp(1_000_000);
        assert_eq!(
            Timestamp::parse_relative("2d", now).unwrap().0,
            1_000_000 - 172_800
        );
        assert!(Timestamp::parse_relative("yesterday", now).is_err());
    }

    #[test]
    fn age_is_short_and_never_negative() {
        let now = Timestamp(10 * 86_400);
        assert_eq!(Timestamp(7 * 86_400).age(now), "3d");
        assert_eq!(Timestamp(11 * 86_400).age(now), "0m");
    }
}
