//! A release's window: the oldest version of its protocol it interoperates with, the one rule the checker,
//! the handshake and the skew test share (re-exported as `wirecheck::handshake::window_minimum` ...).

use std::cmp::Ordering;

use semver::Version;

/// The first release of `version`'s compatibility series: the minimum a peer accepts when its protocol declares
/// no `min_compatible`.
///
/// By Cargo's semver convention: `x.0.0` for `x.y.z` with `x >= 1`, `0.y.0` for `0.y.z` with `y >= 1`, and
/// `0.0.z` itself for `0.0.z`. A pre-release below that first release (`2.0.0-rc.1`) is its own minimum (without
/// build metadata), so a pre-release accepts itself but no earlier series.
///
/// ```
/// use semver::Version;
/// use wirecheck_vocab::window::default_min_compatible;
///
/// let min = |v: &str| default_min_compatible(&Version::parse(v).unwrap()).to_string();
/// assert_eq!(min("1.4.2"), "1.0.0");
/// assert_eq!(min("0.88.3"), "0.88.0");
/// assert_eq!(min("0.0.7"), "0.0.7");
/// assert_eq!(min("2.0.0-rc.1"), "2.0.0-rc.1");
/// ```
pub fn default_min_compatible(version: &Version) -> Version {
    let first = if version.major > 0 {
        Version::new(version.major, 0, 0)
    } else if version.minor > 0 {
        Version::new(0, version.minor, 0)
    } else {
        Version::new(0, 0, version.patch)
    };
    if first.cmp_precedence(version) == Ordering::Greater {
        Version {
            build: semver::BuildMetadata::EMPTY,
            ..version.clone()
        }
    } else {
        first
    }
}

/// The oldest version a release at `version` that declares `min_compatible` interoperates with: the declared
/// `min_compatible`, else the first release of the version's series ([`default_min_compatible`]).
///
/// This is the release's *window*, the one rule the three parts of wirecheck share: the checker compares the
/// release with every release tag inside it in full (and refuses a window that reaches a release it breaks),
/// the handshake (`wirecheck::handshake::negotiate`) accepts exactly the peers inside it ([`in_window`]), and the skew test
/// (`wirecheck::testing`) decodes the fixtures of every release inside it.
///
/// ```
/// use semver::Version;
/// use wirecheck_vocab::window::window_minimum;
///
/// let v = |v: &str| Version::parse(v).unwrap();
/// assert_eq!(window_minimum(&v("0.88.3"), None), v("0.88.0"));
/// assert_eq!(window_minimum(&v("0.88.3"), Some(&v("0.87.0"))), v("0.87.0"));
/// ```
pub fn window_minimum(version: &Version, min_compatible: Option<&Version>) -> Version {
    min_compatible
        .cloned()
        .unwrap_or_else(|| default_min_compatible(version))
}

/// Whether a release at `release` is inside the window that starts at `minimum` ([`window_minimum`]): at or
/// above it by semver precedence (build metadata ignored, a pre-release below its release).
pub fn in_window(release: &Version, minimum: &Version) -> bool {
    minimum.cmp_precedence(release) != Ordering::Greater
}
