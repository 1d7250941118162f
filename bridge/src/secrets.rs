//! The bridge's secrets: the MQTT password and the Lichess tokens, read from the files the
//! settings name (`password_file`, `token_file`) or from systemd's credentials
//! (`LoadCredential=mqtt-password:...`, `LoadCredential=lichess-token:...`, which systemd puts
//! in `$CREDENTIALS_DIRECTORY`). Owns reading them and the messages when that fails; a secret
//! is never part of a message or a log line. Nothing here talks to the network.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The credential that holds the MQTT password.
pub(crate) const MQTT_PASSWORD: &str = "mqtt-password";
/// The credential that holds the Lichess API token.
pub(crate) const LICHESS_TOKEN: &str = "lichess-token";

/// systemd's credentials of this process (`$CREDENTIALS_DIRECTORY`), if it has any.
#[derive(Debug, Clone, Default)]
pub(crate) struct Credentials {
    dir: Option<PathBuf>,
    /// Only checking the settings (`--check-config`).
    check_only: bool,
}

impl Credentials {
    /// The credentials systemd passed (`$CREDENTIALS_DIRECTORY`, set when the unit has
    /// `LoadCredential=`), or none; `check_only` for `--check-config`.
    pub(crate) fn from_env(check_only: bool) -> Credentials {
        let dir = std::env::var_os("CREDENTIALS_DIRECTORY").map(PathBuf::from);
        Credentials::new(dir, check_only)
    }

    /// The credentials in `dir`, or none (tests: no environment).
    pub(crate) fn new(dir: Option<PathBuf>, check_only: bool) -> Credentials {
        Credentials { dir, check_only }
    }

    /// Whether this is `--check-config` run outside the service, which cannot see the
    /// credentials its unit passes: a missing credential is then not an error.
    pub(crate) fn outside_service(&self) -> bool {
        self.check_only && self.dir.is_none()
    }

    /// The credential `name`, trimmed of its final line break, if systemd passed it.
    pub(crate) fn get(&self, name: &str) -> Result<Option<String>> {
        let Some(dir) = &self.dir else {
            return Ok(None);
        };
        let path = dir.join(name);
        if !path.exists() {
            return Ok(None);
        }
        let what = format!("the credential {name} (LoadCredential={name}:...)");
        read(&path, &what).map(Some)
    }
}

/// The secret in the file `path` (`what` names it in messages), without its final line break.
pub(crate) fn read(path: &Path, what: &str) -> Result<String> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read {what} from {} (check that the file exists and that the bridge's user \
             chessclock-bridge may read it, or pass it with LoadCredential=)",
            path.display()
        )
    })?;
    let secret = text.trim_end_matches(['\n', '\r']);
    if secret.is_empty() {
        bail!("{} is empty: it must hold {what}", path.display());
    }
    if secret.contains(['\n', '\r']) {
        bail!(
            "{} has more than one line: it must hold {what} and nothing else",
            path.display()
        );
    }
    Ok(secret.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_read_from_the_directory_and_bad_files_say_why_without_the_secret() {
        let dir = std::env::temp_dir().join(format!("bridge-secrets-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join(MQTT_PASSWORD), "s3cret pass\n").expect("write");
        std::fs::write(dir.join(LICHESS_TOKEN), "lip_abc\nlip_def\n").expect("write");
        let creds = Credentials::new(Some(dir.clone()), false);
        assert_eq!(
            creds.get(MQTT_PASSWORD).expect("read").as_deref(),
            Some("s3cret pass")
        );
        let e = format!("{:#}", creds.get(LICHESS_TOKEN).expect_err("two lines"));
        assert!(
            e.contains("more than one line") && !e.contains("lip_"),
            "{e}"
        );
        assert!(creds.get("nothing").expect("absent").is_none());
        assert!(
            Credentials::default()
                .get(MQTT_PASSWORD)
                .expect("none")
                .is_none()
        );
        let e = format!(
            "{:#}",
            read(&dir.join("missing"), "the MQTT password").expect_err("missing")
        );
        assert!(e.contains("cannot read the MQTT password from"), "{e}");
        std::fs::write(dir.join("empty"), "\n").expect("write");
        let e = format!("{:#}", read(&dir.join("empty"), "x").expect_err("empty"));
        assert!(e.contains("is empty"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
