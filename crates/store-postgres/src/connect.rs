//! Where the database is: a `postgres://` URL or a libpq keyword/value string
//! (`host=… dbname=…`), its password from there, `PGPASSWORD` or the password file, and how it
//! is shown (never with the password).

use std::path::PathBuf;
use std::str::FromStr;

use oro_mem_core::{Error, Result};
use postgres::config::Host;
use postgres::Config;

use crate::store::pg_error;
use crate::tls::{Mode, Tls};

/// True when `location` names a PostgreSQL database rather than a file: a URL
/// (`postgres://…` or `postgresql://…`), or a libpq keyword/value string, which starts with
/// one of libpq's connection keywords and `=` (`host=db user=team`).
pub fn is_postgres_location(location: &str) -> bool {
    location.starts_with("postgres://")
        || location.starts_with("postgresql://")
        || is_keyword_form(location)
}

/// The connection keywords of libpq (PostgreSQL 16), by which a keyword/value string is told
/// from a file path.
const KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "replication",
    "gssencmode",
    "sslmode",
    "requiressl",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "krbsrvname",
    "gsslib",
    "gssdelegation",
    "service",
    "target_session_attrs",
    "load_balance_hosts",
];

/// Whether `location` starts as a libpq keyword/value string does: a keyword, spaces, `=`.
fn is_keyword_form(location: &str) -> bool {
    let text = location.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    KEYWORDS.contains(&&text[..end]) && text[end..].trim_start().starts_with('=')
}

/// A parsed database URL.
#[derive(Clone)]
pub struct Location {
    pub(crate) config: Config,
    pub(crate) tls: Tls,
    shown: String,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Location").field(&self.shown).finish()
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Location {
    /// Parses `url`: `postgres://user[:password]@host[:port]/database[?options]`, or the same
    /// as keywords (`host=h port=5432 dbname=d user=u`), as libpq takes them. Without a
    /// password there, `PGPASSWORD` is used, else the matching line of the password file
    /// (`PGPASSFILE`, else `~/.pgpass`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) for a location that
    /// does not parse; the message never repeats it, since it may hold a password.
    pub fn parse(url: &str) -> Result<Location> {
        // The client library knows `sslmode` up to `require` and no `sslrootcert`: both are
        // read here, and TLS set up by this crate (see `tls`).
        let (url, mode, root_cert) = if is_keyword_form(url) {
            take_tls_keywords(url)?
        } else if is_postgres_location(url) {
            take_tls_params(url)?
        } else {
            return Err(Error::invalid_input(
                "a PostgreSQL location starts with postgres:// or postgresql://, or is a \
                 keyword/value string such as host=db dbname=memory",
            ));
        };
        let tls = Tls {
            mode: match mode.or_else(|| std::env::var("PGSSLMODE").ok()) {
                Some(m) => Mode::parse(&m)?,
                None => Mode::default(),
            },
            root_cert: root_cert
                .or_else(|| std::env::var("PGSSLROOTCERT").ok())
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        };
        let mut config = Config::from_str(&url).map_err(|e| {
            Error::invalid_input(format!("the PostgreSQL location is malformed: {e}"))
        })?;
        config.ssl_mode(tls.mode.ssl_mode());
        if config.get_password().is_none() {
            if let Some(password) = std::env::var_os("PGPASSWORD") {
                config.password(password.to_string_lossy().as_bytes());
            } else if let Some(password) = password_file_entry(&config) {
                config.password(password.as_bytes());
            }
        }
        let shown = shown(&config);
        Ok(Location { config, tls, shown })
    }

    /// This database with its tables in `schema` (made on first use): the session's
    /// `search_path` is set to it, in place of any the URL set.
    pub fn in_schema(&self, schema: &str) -> Location {
        let mut config = self.config.clone();
        // Backslash-escaped as libpq's `options` wants: spaces and backslashes.
        let escaped = schema.replace('\\', "\\\\").replace(' ', "\\ ");
        config.options(&format!("-c search_path={escaped}"));
        let shown = shown(&config);
        Location {
            config,
            tls: self.tls.clone(),
            shown,
        }
    }

    /// Drops `schema` and everything in it, if it exists.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the server cannot be
    /// reached or refuses.
    pub fn drop_schema(&self, schema: &str) -> Result<()> {
        let mut client = self.connect()?;
        let drop: String = client
            .query_one(
                "SELECT format('DROP SCHEMA IF EXISTS %I CASCADE', $1::text)",
                &[&schema],
            )
            .map_err(|e| pg_error("cannot drop schema", e))?
            .get(0);
        client
            .batch_execute(&drop)
            .map_err(|e| pg_error(&format!("cannot drop schema {schema}"), e))
    }

    /// A connection to the database, over TLS as `sslmode` asks.
    pub(crate) fn connect(&self) -> Result<postgres::Client> {
        self.config
            .connect(self.tls.connector()?)
            .map_err(|e| pg_error(&format!("cannot connect to {self}"), e))
    }

    /// The user this connects as.
    pub fn user(&self) -> Option<&str> {
        self.config.get_user()
    }
}

/// `url` without its `sslmode` and `sslrootcert` parameters, and their (decoded) values.
fn take_tls_params(url: &str) -> Result<(String, Option<String>, Option<String>)> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None, None));
    };
    let (mut mode, mut root) = (None, None);
    let mut kept = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("sslmode", v)) => mode = Some(percent_decode(v)?),
            Some(("sslrootcert", v)) => root = Some(percent_decode(v)?),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, mode, root))
}

/// The keyword/value string `text` without its `sslmode` and `sslrootcert`, and their values.
/// Values are read as libpq reads them: bare up to a space, or single-quoted, with `\` escaping
/// the next character in both.
fn take_tls_keywords(text: &str) -> Result<(String, Option<String>, Option<String>)> {
    let malformed = |what: &str| {
        Error::invalid_input(format!(
            "the PostgreSQL keyword/value string is malformed: {what}"
        ))
    };
    let (mut mode, mut root) = (None, None);
    let mut kept = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(malformed(&format!("`{key}` has no `=`")));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                    None => {
                        return Err(malformed(&format!(
                            "the value of `{key}` has no closing quote"
                        )))
                    }
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next());
                } else {
                    value.push(c);
                }
            }
        }
        match key.as_str() {
            "sslmode" => mode = Some(value),
            "sslrootcert" => root = Some(value),
            _ => {
                let quoted = value.replace('\\', "\\\\").replace('\'', "\\'");
                kept.push(format!("{key}='{quoted}'"));
            }
        }
    }
    Ok((kept.join(" "), mode, root))
}

fn percent_decode(s: &str) -> Result<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    Error::invalid_input("the PostgreSQL URL has a malformed % escape")
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| Error::invalid_input("the PostgreSQL URL has an escape that is not UTF-8"))
}

/// `postgres://user@host:port/database`: what identifies the database, without the password.
fn shown(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().or(config.get_user()).unwrap_or("");
    // Session settings (such as the schema) name no secret, and tell two stores apart.
    let options = config
        .get_options()
        .map(|o| format!(" (options {o})"))
        .unwrap_or_default();
    format!("postgres://{user}{host}:{port}/{db}{options}")
}

/// The password of the first line of the password file that matches `config`'s host, port,
/// database and user (`*` matches anything; `\:` and `\\` escape), as libpq reads it.
fn password_file_entry(config: &Config) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default();
    let db = config.get_dbname().unwrap_or(user);
    let wanted = [host.as_str(), port.as_str(), db, user];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(split_pgpass_line)
        .find(|fields| {
            fields.len() == 5
                && fields[..4]
                    .iter()
                    .zip(wanted)
                    .all(|(f, w)| f == "*" || f == w)
        })
        .map(|mut fields| fields.remove(4))
}

fn split_pgpass_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field").push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_never_shown() {
        let l = Location::parse("postgres://team:s3cr%3At@db.example:6543/memory").unwrap();
        assert_eq!(l.to_string(), "postgres://team@db.example:6543/memory");
        assert!(!format!("{l:?}").contains("s3cr"));
        let e = Location::parse("postgres://team:s3cret@db.example:notaport/x").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }

    #[test]
    fn a_keyword_value_string_is_a_location_and_its_password_is_never_shown() {
        for (text, password) in [
            ("host=127.0.0.1 user=u password=SECRET", "SECRET"),
            (
                "  dbname = memory host=db.example port=6543 user=team password='SE \\'CRET'",
                "SE 'CRET",
            ),
            ("password=SECRET host=h", "SECRET"),
        ] {
            assert!(is_postgres_location(text), "{text}");
            let l = Location::parse(text).unwrap();
            assert_eq!(l.config.get_password(), Some(password.as_bytes()));
            assert!(!l.to_string().contains("SE"), "{l}");
            assert!(!format!("{l:?}").contains("SE"), "{l:?}");
        }
        let l = Location::parse("dbname = memory host=db.example port=6543 user=team").unwrap();
        assert_eq!(l.to_string(), "postgres://team@db.example:6543/memory");
        let l = Location::parse("host=h password='a b\\'c\\\\'").unwrap();
        assert_eq!(l.config.get_password(), Some(&b"a b'c\\"[..]));
        let l = Location::parse("host=h sslmode=verify-full sslrootcert='/ca dir/ca.pem'").unwrap();
        assert_eq!(l.tls.mode, Mode::VerifyFull);
        assert_eq!(
            l.tls.root_cert.as_deref(),
            Some(std::path::Path::new("/ca dir/ca.pem"))
        );
        for text in [
            "host=h password='SECRET",
            "host=h password",
            "host=h port=SECRET",
        ] {
            let e = Location::parse(text).unwrap_err();
            assert!(!e.to_string().contains("SECRET"), "{e}");
        }
        // A file path is not a location, even with an `=` in it.
        for path in [
            "state.db",
            "a=b.db",
            "./host=db",
            "hosts=1",
            ".oro/state.db",
        ] {
            assert!(!is_postgres_location(path), "{path}");
        }
    }

    #[test]
    fn tls_parameters_are_read_and_the_rest_passed_on() {
        let (url, mode, root) = take_tls_params(
            "postgres://u@h/db?sslmode=verify-full&options=-csearch_path%3Dt&sslrootcert=%2Fca.pem",
        )
        .unwrap();
        assert_eq!(url, "postgres://u@h/db?options=-csearch_path%3Dt");
        assert_eq!(mode.as_deref(), Some("verify-full"));
        assert_eq!(root.as_deref(), Some("/ca.pem"));
        let l = Location::parse("postgres://u@h/db?sslmode=verify-ca").unwrap();
        assert_eq!(l.tls.mode, Mode::VerifyCa);
        let e = Location::parse("postgres://u@h/db?sslmode=sometimes").unwrap_err();
        assert!(e.to_string().contains("sslmode"), "{e}");
    }

    #[test]
    fn password_file_lines_match_with_wildcards_and_escapes() {
        assert_eq!(
            split_pgpass_line(r"db.example:*:memory:team:pa\:ss\\word"),
            ["db.example", "*", "memory", "team", r"pa:ss\word"]
        );
    }
}
