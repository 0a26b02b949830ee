//! Tests against a real PostgreSQL server with pgvector: the one `scripts/postgres start`
//! runs, named by `ORO_MEM_TEST_PG_URL` (`scripts/test` sets it). Without it these tests say
//! so and pass, unless `ORO_MEM_TEST_PG_REQUIRED` is set (as `scripts/test` does), when they
//! fail. Each store lives in a schema of its own, dropped at the end.

use std::sync::atomic::{AtomicU32, Ordering};

use oro_mem_core::testing::store_conformance;
use postgres::{Client, NoTls};

use crate::{Location, Store};

/// A server to test against, and the schemas made on it, dropped when this is.
pub(crate) struct Server {
    url: String,
    schemas: Vec<String>,
}

impl Server {
    /// The test server, or `None` (with a note on standard error) when there is none.
    pub(crate) fn get() -> Option<Server> {
        match std::env::var("ORO_MEM_TEST_PG_URL") {
            Ok(url) if !url.is_empty() => Some(Server {
                url,
                schemas: Vec::new(),
            }),
            _ if std::env::var_os("ORO_MEM_TEST_PG_REQUIRED").is_some() => {
                panic!("ORO_MEM_TEST_PG_REQUIRED is set but ORO_MEM_TEST_PG_URL is not")
            }
            _ => {
                eprintln!(
                    "no ORO_MEM_TEST_PG_URL: PostgreSQL tests skipped (see scripts/postgres)"
                );
                None
            }
        }
    }

    /// The location of a new, empty schema.
    pub(crate) fn fresh(&mut self) -> Location {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "oro_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.schemas.push(name.clone());
        let sep = if self.url.contains('?') { '&' } else { '?' };
        Location::parse(&format!("{}{sep}options=-csearch_path%3D{name}", self.url))
            .expect("test URL")
    }

    /// A new, empty store.
    pub(crate) fn store(&mut self) -> Store {
        Store::open(&self.fresh()).expect("open a store on the test server")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.schemas.is_empty() {
            return;
        }
        if let Ok(mut c) = Client::connect(&self.url, NoTls) {
            for s in &self.schemas {
                let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {s} CASCADE"));
            }
        }
    }
}

#[test]
fn conforms_to_the_store_interface() {
    let Some(mut server) = Server::get() else {
        return;
    };
    store_conformance(|| server.store());
}
