//! TLS, end to end: the test server is built without TLS, so a proxy in this test speaks
//! PostgreSQL's TLS negotiation (answer `S` to the client's SSLRequest, then a TLS handshake
//! with a certificate made here) and passes the decrypted bytes on to the server. The proxy
//! serves TLS only: a connection that does not ask for it is dropped, so every connection that
//! works went through a TLS handshake.

use std::io::{ErrorKind as IoKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

use crate::testing::TestServer as Server;
use crate::Location;

/// The 8 bytes of PostgreSQL's SSLRequest: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 4, 210, 22, 47];

/// A TLS-terminating proxy to `upstream` on a port of its own, counting handshakes.
struct Proxy {
    port: u16,
    handshakes: Arc<AtomicUsize>,
}

impl Proxy {
    fn start(
        upstream: (String, u16),
        cert: CertificateDer<'static>,
        key: PrivateKeyDer<'static>,
    ) -> Proxy {
        let config = Arc::new(
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("protocol versions")
                .with_no_client_auth()
                .with_single_cert(vec![cert], key)
                .expect("server certificate"),
        );
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let handshakes = Arc::new(AtomicUsize::new(0));
        let count = handshakes.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (config, upstream, count) = (config.clone(), upstream.clone(), count.clone());
                std::thread::spawn(move || {
                    let _ = relay(client, &config, &upstream, &count);
                });
            }
        });
        Proxy { port, handshakes }
    }
}

fn relay(
    mut client: TcpStream,
    config: &Arc<ServerConfig>,
    upstream: &(String, u16),
    handshakes: &AtomicUsize,
) -> std::io::Result<()> {
    let mut request = [0u8; 8];
    client.read_exact(&mut request)?;
    if request != SSL_REQUEST {
        return Ok(()); // TLS only: drop the connection
    }
    client.write_all(b"S")?;
    let mut tls = StreamOwned::new(
        ServerConnection::new(config.clone()).map_err(std::io::Error::other)?,
        client,
    );
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    handshakes.fetch_add(1, Ordering::SeqCst);
    let mut server = TcpStream::connect((upstream.0.as_str(), upstream.1))?;
    let tick = Some(Duration::from_millis(2));
    tls.sock.set_read_timeout(tick)?;
    server.set_read_timeout(tick)?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match tls.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => server.write_all(&buf[..n])?,
            Err(e) if matches!(e.kind(), IoKind::WouldBlock | IoKind::TimedOut) => {}
            Err(e) => return Err(e),
        }
        match server.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                tls.write_all(&buf[..n])?;
                tls.flush()?;
            }
            Err(e) if matches!(e.kind(), IoKind::WouldBlock | IoKind::TimedOut) => {}
            Err(e) => return Err(e),
        }
    }
}

#[test]
fn tls_follows_sslmode_as_libpq_does() {
    let Some(server) = Server::get() else {
        return;
    };
    let url = server.url.clone();
    // Host and port of the test server, and the rest of its URL (user, database).
    let rest = url.split_once("://").expect("a URL").1;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (user, hostport) = authority.rsplit_once('@').unwrap_or(("", authority));
    let (host, port) = hostport.rsplit_once(':').expect("host:port");
    let upstream = (host.to_string(), port.parse::<u16>().expect("a port"));

    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("certificate");
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("root.pem");
    std::fs::write(&root, made.cert.pem()).expect("write root");
    let proxy = Proxy::start(
        upstream,
        made.cert.der().clone(),
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.key_pair.serialize_der())),
    );
    let root = root.to_str().expect("UTF-8").replace('/', "%2F");
    let at = |host: &str, params: &str| {
        let user = if user.is_empty() {
            String::new()
        } else {
            format!("{user}@")
        };
        Location::parse(&format!(
            "postgres://{user}{host}:{}/{path}?{params}",
            proxy.port
        ))
        .expect("URL")
    };
    let works = |l: &Location| {
        l.connect().and_then(|mut c| {
            c.query_one("SELECT 1", &[])
                .map(|_| ())
                .map_err(|e| crate::store::pg_error("query", e))
        })
    };

    works(&at("127.0.0.1", "sslmode=require"))
        .expect("require: encrypted, certificate not checked");
    let before = proxy.handshakes.load(Ordering::SeqCst);
    assert!(before >= 1, "the connection went through TLS");
    assert!(
        works(&at("127.0.0.1", "sslmode=disable")).is_err(),
        "the proxy serves TLS only, so plain connections fail"
    );
    let e = works(&at("127.0.0.1", "sslmode=verify-full")).expect_err("not a trusted root");
    assert!(e.to_string().contains("cannot connect"), "{e}");
    works(&at(
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={root}"),
    ))
    .expect("verify-full: trusted root, right host");
    works(&at(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={root}"),
    ))
    .expect("verify-full by name");
    // A certificate for another host: verify-ca accepts it, verify-full does not.
    let other =
        rcgen::generate_simple_self_signed(vec!["db.elsewhere".to_string()]).expect("certificate");
    let other_root = dir.path().join("other.pem");
    std::fs::write(&other_root, other.cert.pem()).expect("write root");
    let elsewhere = Proxy::start(
        (host.to_string(), port.parse().expect("a port")),
        other.cert.der().clone(),
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(other.key_pair.serialize_der())),
    );
    let other_root = other_root.to_str().expect("UTF-8").replace('/', "%2F");
    let at_elsewhere = |params: &str| {
        let user = if user.is_empty() {
            String::new()
        } else {
            format!("{user}@")
        };
        Location::parse(&format!(
            "postgres://{user}127.0.0.1:{}/{path}?{params}",
            elsewhere.port
        ))
        .expect("URL")
    };
    works(&at_elsewhere(&format!(
        "sslmode=verify-ca&sslrootcert={other_root}"
    )))
    .expect("verify-ca: the chain only");
    assert!(
        works(&at_elsewhere(&format!(
            "sslmode=verify-full&sslrootcert={other_root}"
        )))
        .is_err(),
        "verify-full: the host must match"
    );
}
