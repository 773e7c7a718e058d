//! Cargo's home directory, where the registry's source cache and git checkouts are, found by the `home`
//! crate (maintained with cargo) exactly as cargo finds it.

use std::path::PathBuf;

/// Cargo's home in the environment `env`: `CARGO_HOME` (relative to the current directory), else
/// `.cargo` in the user's home directory (on Windows not `HOME`); `.cargo` in the current directory when
/// neither is known, so that a note still says where dependencies were looked for.
pub(super) fn cargo_home(env: &dyn home::env::Env) -> PathBuf {
    home::env::cargo_home_with_env(env).unwrap_or_else(|_| PathBuf::from(".cargo"))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::path::PathBuf;

    use super::cargo_home;

    /// An environment of its own, as `home` asks it (the process's variables are shared by every test).
    struct Env {
        cargo_home: Option<OsString>,
        home: Option<PathBuf>,
        cwd: PathBuf,
    }

    impl home::env::Env for Env {
        fn home_dir(&self) -> Option<PathBuf> {
            self.home.clone()
        }

        fn current_dir(&self) -> std::io::Result<PathBuf> {
            Ok(self.cwd.clone())
        }

        fn var_os(&self, key: &str) -> Option<OsString> {
            self.cargo_home.clone().filter(|_| key == "CARGO_HOME")
        }
    }

    #[test]
    fn cargo_home_is_cargo_home_else_dot_cargo_in_the_home_directory() {
        let user = std::env::temp_dir().join("user");
        let cwd = std::env::temp_dir().join("workspace");
        let mut env = Env {
            cargo_home: None,
            home: Some(user.clone()),
            cwd: cwd.clone(),
        };
        assert_eq!(cargo_home(&env), user.join(".cargo"));
        let set = std::env::temp_dir().join("cargo-home");
        env.cargo_home = Some(set.clone().into());
        assert_eq!(cargo_home(&env), set);
        // Relative to the current directory, as cargo reads it; an empty one counts as unset.
        env.cargo_home = Some("relative/cargo".into());
        assert_eq!(cargo_home(&env), cwd.join("relative/cargo"));
        env.cargo_home = Some(OsString::new());
        assert_eq!(cargo_home(&env), user.join(".cargo"));
        env.home = None;
        assert_eq!(cargo_home(&env), PathBuf::from(".cargo"));
    }
}
