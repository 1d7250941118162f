//! The bridge's MQTT over TLS with a password, against a real mosquitto that requires both: a
//! listener with a certificate from a test CA made here with `openssl`, and a password file
//! made with `mosquitto_passwd`. The bridge publishes with the password from systemd's
//! credential directory and the CA from `mqtt.ca_file`, and `mosquitto_sub` (same CA and
//! password) reads it back; a wrong password and a certificate from a CA the bridge does not
//! trust are refused with messages that say what to fix; no log line holds the password;
//! `--check-config` names a missing password file. And the Lichess push over https (a local
//! Python server with the test CA's certificate standing in for lichess.org) trusts what the
//! system's store trusts (`SSL_CERT_FILE` here), with the token from the credential
//! `lichess-token`. In CI a missing program fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::rig::{Collector, Daemon, WAIT, check_config, write_config};
use chessclock_tests::{PrivateBus, TempDir};

use crate::bridge_mqtt::{Broker, Sub};

/// The broker's user and password.
const USER: &str = "pi";
const PASSWORD: &str = "Corr3ct-h0rse:b@ttery";

/// openssl's settings for the test CA and the broker's certificate (127.0.0.1, localhost).
const OPENSSL_CNF: &str = "[req]
distinguished_name = dn
prompt = no
[dn]
CN = chessclock test
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
";

fn run(program: &Path, args: &[&str]) -> Result<Output> {
    let out = Command::new(program).args(args).output()?;
    if !out.status.success() {
        bail!(
            "{} {args:?} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out)
}

/// `openssl req ARGS` with a new P-256 key, unencrypted.
fn req(openssl: &Path, args: &[&str]) -> Result<Output> {
    let mut all = vec![
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    all.extend_from_slice(args);
    run(openssl, &all)
}

/// A CA named `name` in `dir`: its certificate and key.
fn make_ca(openssl: &Path, dir: &Path, name: &str) -> Result<(PathBuf, PathBuf)> {
    let cnf = dir.join("openssl.cnf");
    std::fs::write(&cnf, OPENSSL_CNF)?;
    let (crt, key) = (
        dir.join(format!("{name}.crt")),
        dir.join(format!("{name}.key")),
    );
    let subject = format!("/CN={name}");
    req(
        openssl,
        &[
            "-x509",
            "-config",
            &s(&cnf),
            "-extensions",
            "ca",
            "-keyout",
            &s(&key),
            "-out",
            &s(&crt),
            "-days",
            "2",
            "-subj",
            &subject,
        ],
    )?;
    Ok((crt, key))
}

/// The broker's certificate and key for 127.0.0.1, signed by the CA `(crt, key)`.
fn server_cert(openssl: &Path, dir: &Path, ca: &(PathBuf, PathBuf)) -> Result<(PathBuf, PathBuf)> {
    let cnf = dir.join("openssl.cnf");
    let (csr, crt, key) = (
        dir.join("server.csr"),
        dir.join("server.crt"),
        dir.join("server.key"),
    );
    req(
        openssl,
        &[
            "-new",
            "-config",
            &s(&cnf),
            "-keyout",
            &s(&key),
            "-out",
            &s(&csr),
            "-subj",
            "/CN=127.0.0.1",
        ],
    )?;
    run(
        openssl,
        &[
            "x509",
            "-req",
            "-in",
            &s(&csr),
            "-CA",
            &s(&ca.0),
            "-CAkey",
            &s(&ca.1),
            "-set_serial",
            "2",
            "-out",
            &s(&crt),
            "-days",
            "2",
            "-extfile",
            &s(&cnf),
            "-extensions",
            "server",
        ],
    )?;
    Ok((crt, key))
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A mosquitto requiring TLS (a certificate from a fresh test CA) and `USER`'s password, with
/// the CA's certificate; `None` (skip) without the programs, outside CI.
struct Rig {
    dir: TempDir,
    broker: Broker,
    ca: PathBuf,
    openssl: PathBuf,
    sub_exe: PathBuf,
}

impl Rig {
    fn start(tag: &str) -> Result<Option<Rig>> {
        let (Some(mosquitto), Some(sub_exe), Some(passwd), Some(openssl)) = (
            have("mosquitto", "mosquitto")?,
            have("mosquitto_sub", "mosquitto-clients")?,
            have("mosquitto_passwd", "mosquitto")?,
            have("openssl", "openssl")?,
        ) else {
            return Ok(None);
        };
        let dir = TempDir::new(tag)?;
        let ca = make_ca(&openssl, dir.path(), "test-ca")?;
        let (crt, key) = server_cert(&openssl, dir.path(), &ca)?;
        let pw = dir.path().join("passwd");
        run(&passwd, &["-c", "-b", &s(&pw), USER, PASSWORD])?;
        // Started as root, mosquitto would run as the user mosquitto, who cannot read the
        // test's key (0600); `user root` keeps it (mosquitto ignores it when not root).
        let settings = format!(
            "user root\ncafile {}\ncertfile {}\nkeyfile {}\nallow_anonymous false\npassword_file {}\n",
            s(&ca.0),
            s(&crt),
            s(&key),
            s(&pw)
        );
        let broker = Broker::start_with(&mosquitto, &dir, &settings)?;
        Ok(Some(Rig {
            dir,
            broker,
            ca: ca.0,
            openssl,
            sub_exe,
        }))
    }

    /// A bridge settings file with `text`; its path.
    fn config(&self, text: &str) -> Result<String> {
        let file = self.dir.path().join("bridge.toml");
        std::fs::write(&file, text)?;
        Ok(s(&file))
    }

    fn url(&self) -> String {
        format!("mqtts://{USER}@127.0.0.1:{}", self.broker.port)
    }
}

/// A daemon on a private bus with one ready virtual clock.
fn daemon(dir: &TempDir) -> Result<(PrivateBus, Daemon)> {
    let bus = PrivateBus::start_session()?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    anyhow::ensure!(d.ctl(&["add-virtual", "alpha"]).status.success());
    d.wait_status("0", WAIT, "a ready clock", |v| v["device_state"] == "ready")?;
    Ok((bus, d))
}

/// No line of the bridge's log holds `secret`.
fn assert_not_logged(bridge: &mut Bridge, secret: &str) {
    let lines = bridge.log_lines();
    assert!(!lines.is_empty(), "the bridge logged nothing");
    let leaks: Vec<&String> = lines.iter().filter(|l| l.contains(secret)).collect();
    assert!(leaks.is_empty(), "the password is in the log: {leaks:?}");
}

#[test]
fn tls_and_a_password_from_the_credential_publish_and_the_log_holds_no_password() -> Result<()> {
    let Some(rig) = Rig::start("mqtt-tls")? else {
        return Ok(());
    };
    let creds = rig.dir.path().join("credentials");
    std::fs::create_dir_all(&creds)?;
    std::fs::write(creds.join("mqtt-password"), format!("{PASSWORD}\n"))?;
    let config = rig.config(&format!(
        "[mqtt]\nurl = \"{}\"\nca_file = \"{}\"\n",
        rig.url(),
        s(&rig.ca)
    ))?;
    let (bus, _d) = daemon(&rig.dir)?;
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &["--config", &config, "--host", "tls"],
        &[
            ("CREDENTIALS_DIRECTORY", &s(&creds)),
            ("CHESSCLOCK_BRIDGE_LOG", "debug"),
        ],
    )?;
    bridge.wait_log(0, &format!("connected to MQTT broker {}", rig.url()))?;

    let port = rig.broker.port.to_string();
    let tls_args = ["--cafile", &s(&rig.ca), "-u", USER, "-P", PASSWORD];
    let mut sub = Sub::start_with(
        &rig.sub_exe,
        rig.broker.port,
        "chessclockd/tls/#",
        &tls_args,
    )?;
    sub.wait(0, "chessclockd/tls/status", |p| p == "online")?;
    let (_, state) = sub.wait(0, "chessclockd/tls/clock/0/state", |_| true)?;
    let state: serde_json::Value = serde_json::from_str(&state)?;
    assert_eq!(state["name"], "alpha", "{state}");
    // The broker does want the password: without it mosquitto_sub is refused.
    let anon = Command::new(&rig.sub_exe)
        .args(["-h", "127.0.0.1", "-p", &port, "--cafile", &s(&rig.ca)])
        .args(["-t", "chessclockd/#", "-C", "1", "-W", "5"])
        .output()?;
    assert!(!anon.status.success(), "an anonymous subscriber was let in");
    assert_not_logged(&mut bridge, PASSWORD);
    Ok(())
}

#[test]
fn a_wrong_password_is_refused_with_what_to_fix_and_check_config_names_a_missing_file() -> Result<()>
{
    let Some(rig) = Rig::start("mqtt-tls-pw")? else {
        return Ok(());
    };
    let missing = rig.config(&format!(
        "[mqtt]\nurl = \"{}\"\npassword_file = \"/nonexistent/mqtt-password\"\n",
        rig.url()
    ))?;
    let out = check_config("chessclock-bridge", Path::new(&missing));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot read the MQTT password (mqtt.password_file)"),
        "{err}"
    );
    assert!(err.contains("bridge.toml, line 3)"), "{err}");

    let wrong = "not-the-password";
    let pw = rig.dir.path().join("wrong-password");
    std::fs::write(&pw, format!("{wrong}\n"))?;
    let config = rig.config(&format!(
        "[mqtt]\nurl = \"{}\"\npassword_file = \"{}\"\nca_file = \"{}\"\n",
        rig.url(),
        s(&pw),
        s(&rig.ca)
    ))?;
    let (bus, _d) = daemon(&rig.dir)?;
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &["--config", &config],
        &[("CHESSCLOCK_BRIDGE_LOG", "debug")],
    )?;
    bridge.wait_log(0, "the broker refused the user name or password")?;
    assert_not_logged(&mut bridge, wrong);
    Ok(())
}

#[test]
fn a_certificate_from_an_untrusted_ca_is_refused() -> Result<()> {
    let Some(rig) = Rig::start("mqtt-tls-ca")? else {
        return Ok(());
    };
    let other = TempDir::new("mqtt-tls-other-ca")?;
    let (other_ca, _) = make_ca(&rig.openssl, other.path(), "other-ca")?;
    let (bus, _d) = daemon(&rig.dir)?;
    // The "system store" is the other CA alone (rustls-native-certs honours SSL_CERT_FILE):
    // nothing compiled in trusts the broker either.
    let url = rig.url();
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &["--mqtt", &url],
        &[("SSL_CERT_FILE", &s(&other_ca))],
    )?;
    bridge.wait_log(0, "not signed by a CA this machine trusts")?;
    // The same through mqtt.ca_file.
    let config = rig.config(&format!(
        "[mqtt]\nurl = \"{url}\"\nca_file = \"{}\"\n",
        s(&other_ca)
    ))?;
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &["--config", &config],
        &[("SSL_CERT_FILE", &s(&other_ca))],
    )?;
    bridge.wait_log(0, "set mqtt.ca_file to it")?;
    Ok(())
}

/// An https server on a free port standing in for lichess.org: it answers every POST with
/// `{"games":[]}` and prints `METHOD PATH AUTHORIZATION` for each. Killed on drop.
struct HttpsStandIn {
    child: Child,
    port: u16,
    requests: Collector<String>,
}

const HTTPS_STAND_IN: &str = r#"
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        print(self.command, self.path, self.headers.get("Authorization"), flush=True)
        body = b'{"games":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

impl HttpsStandIn {
    fn start(python: &Path, crt: &Path, key: &Path) -> Result<HttpsStandIn> {
        let mut child = Command::new(python)
            .args(["-c", HTTPS_STAND_IN, &s(crt), &s(key)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start python3")?;
        let out = child.stdout.take().context("stdout")?;
        let mut requests = Collector::lines(out, "https stand-in", None);
        let (_, port) = requests.wait_for(0, WAIT, "its port", |_| true)?;
        let port = port.parse().context("the stand-in's port")?;
        Ok(HttpsStandIn {
            child,
            port,
            requests,
        })
    }
}

impl Drop for HttpsStandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn lichess_over_https_trusts_the_system_store_and_takes_the_token_from_the_credential() -> Result<()>
{
    let (Some(openssl), Some(python)) = (have("openssl", "openssl")?, have("python3", "python3")?)
    else {
        return Ok(());
    };
    let dir = TempDir::new("lichess-tls")?;
    let ca = make_ca(&openssl, dir.path(), "test-ca")?;
    let (crt, key) = server_cert(&openssl, dir.path(), &ca)?;
    let other = TempDir::new("lichess-tls-other-ca")?;
    let (other_ca, _) = make_ca(&openssl, other.path(), "other-ca")?;
    let mut server = HttpsStandIn::start(&python, &crt, &key)?;
    let token = "lip_fromTheCredential";
    let creds = dir.path().join("credentials");
    std::fs::create_dir_all(&creds)?;
    std::fs::write(creds.join("lichess-token"), format!("{token}\n"))?;
    let config = dir.path().join("bridge.toml");
    std::fs::write(
        &config,
        format!(
            "[[lichess]]\nround = \"AbCd1234\"\nserver = \"https://127.0.0.1:{}\"\n",
            server.port
        ),
    )?;
    let (bus, d) = daemon(&dir)?;
    let info = d.ctl(&["info", "0", "white=Carlsen, Magnus", "black=Ding, Liren"]);
    anyhow::ensure!(info.status.success(), "{info:?}");
    let args = ["--config", &s(&config)];
    let creds = s(&creds);

    // A store without the test CA: the handshake fails, and the log says what to do.
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &args,
        &[
            ("SSL_CERT_FILE", &s(&other_ca)),
            ("CREDENTIALS_DIRECTORY", &creds),
        ],
    )?;
    bridge.wait_log(
        0,
        "push failed, will retry: cannot reach Lichess: the server's TLS certificate is not signed",
    )?;
    assert_not_logged(&mut bridge, token);
    drop(bridge);

    // The test CA in the store: the push goes through, with the credential's token.
    let mut bridge = Bridge::spawn_env(
        bus.address(),
        &args,
        &[
            ("SSL_CERT_FILE", &s(&ca.0)),
            ("CREDENTIALS_DIRECTORY", &creds),
        ],
    )?;
    let (_, request) = server.requests.wait_for(1, WAIT, "a push", |_| true)?;
    assert_eq!(
        request,
        format!("POST /api/broadcast/round/AbCd1234/push Bearer {token}")
    );
    bridge.wait_log(0, "pushed")?;
    assert_not_logged(&mut bridge, token);
    Ok(())
}
