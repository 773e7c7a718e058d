//! `cargo xtask architecture`: the limits ARCHITECTURE.md sets on the library's source (`src/`), checked
//! on its syntax trees:
//!
//! - no function longer than [`MAX_FUNCTION_LINES`] lines (from `fn` to its closing brace);
//! - no file longer than [`MAX_FILE_LINES`] lines;
//! - no two modules that import each other, directly or through a cycle: among the modules of one parent
//!   (the crate's top-level modules, or the submodules of one module). A module using its ancestors
//!   (`super::`) or its descendants is not an edge: a parent owns its children;
//! - a rule id's string (`"field_removed"`) is written only in the catalogue, `vocab/src/rules.rs`: everything
//!   else names rules by `RuleId`;
//! - every rule is constructed in one file, its home ([`rule_homes`]);
//! - the check reads as a pipeline: its options read in at most three of its files, no store in its
//!   driver ([`driver`]);
//! - each crate depends on the workspace's crates ARCHITECTURE.md's crate table states, no more and no
//!   less ([`crates`]).
//!
//! The same check runs as a test of this crate (`cargo test -p xtask`), so CI fails on a violation.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

pub mod crates;
pub mod driver;
pub mod rule_homes;

/// The longest a function of `src/` may be, in lines.
pub const MAX_FUNCTION_LINES: usize = 80;
/// The longest a file of `src/` may be, in lines.
pub const MAX_FILE_LINES: usize = 800;
/// The one file where rule ids are written as strings.
const CATALOGUE: &str = "vocab/src/rules.rs";

/// One broken limit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Violation {
    /// A function longer than [`MAX_FUNCTION_LINES`].
    LongFunction {
        file: String,
        line: usize,
        name: String,
        lines: usize,
    },
    /// A file longer than [`MAX_FILE_LINES`].
    LongFile { file: String, lines: usize },
    /// Modules of one parent that import each other, in the order of the cycle.
    ImportCycle { modules: Vec<String> },
    /// A rule id written as a string outside the catalogue.
    RuleIdLiteral {
        file: String,
        line: usize,
        id: String,
    },
    /// A file that does not parse.
    Unparsable { file: String, error: String },
    /// A top-level module uses one that ARCHITECTURE.md's layer table does not let it use.
    UndeclaredUse { from: String, to: String },
    /// ARCHITECTURE.md's layer table says a module uses another that it no longer uses.
    StaleClaim { from: String, to: String },
    /// A top-level module of `src/` missing from ARCHITECTURE.md's layer table, or a row naming none.
    UnlistedModule { module: String },
    /// A rule without one home.
    RuleHome(rule_homes::HomeViolation),
    /// The check no longer reads as a pipeline.
    Driver(driver::DriverViolation),
    /// A crate's dependencies are not those the crate table states.
    Crate(crates::CrateViolation),
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::LongFunction {
                file,
                line,
                name,
                lines,
            } => write!(
                f,
                "{file}:{line}: fn `{name}` is {lines} lines long (at most {MAX_FUNCTION_LINES}): split it into functions that each decide one thing"
            ),
            Violation::LongFile { file, lines } => write!(
                f,
                "{file}: {lines} lines (at most {MAX_FILE_LINES}): split the module by concern"
            ),
            Violation::ImportCycle { modules } => write!(
                f,
                "import cycle: {} -> {}: move what they share into a module both import",
                modules.join(" -> "),
                modules[0]
            ),
            Violation::RuleIdLiteral { file, line, id } => write!(
                f,
                "{file}:{line}: the rule id \"{id}\" is written as a string: name the rule by `RuleId` (ids are written in {CATALOGUE} only)"
            ),
            Violation::Unparsable { file, error } => write!(f, "{file}: does not parse: {error}"),
            Violation::UndeclaredUse { from, to } => write!(
                f,
                "crate::{from} uses crate::{to}, which ARCHITECTURE.md's layer table does not let it use: remove the use, or change the table (and the design it states) with the code"
            ),
            Violation::StaleClaim { from, to } => write!(
                f,
                "ARCHITECTURE.md's layer table says crate::{from} uses crate::{to}, which it no longer does: remove `{to}` from its row"
            ),
            Violation::RuleHome(violation) => write!(f, "{violation}"),
            Violation::Driver(violation) => write!(f, "{violation}"),
            Violation::Crate(violation) => write!(f, "{violation}"),
            Violation::UnlistedModule { module } => write!(
                f,
                "crate::{module}: not a row of ARCHITECTURE.md's layer table (or a row naming no module of src/): add it, with the modules it uses"
            ),
        }
    }
}

/// One source file of the crate: its path relative to the crate root and its text.
pub struct SourceFile {
    /// `src/compat/mod.rs`.
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// `cargo xtask architecture`: checks the library of this workspace and prints every violation.
pub fn run(_args: &[String]) -> Result<ExitCode> {
    let (files, violations) = of_workspace(&crate::workspace_root())?;
    for violation in &violations {
        println!("{violation}");
    }
    if !violations.is_empty() {
        eprintln!(
            "error: {} violation(s) of the limits in ARCHITECTURE.md",
            violations.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    println!(
        "architecture: {} files of the library within the limits (functions <= {MAX_FUNCTION_LINES} lines, files <= {MAX_FILE_LINES} lines, no import cycles, top-level uses as ARCHITECTURE.md's layer table says, no rule id string outside {CATALOGUE}, each rule constructed in one file, the check's options read in at most {} of its files and no store in its driver, each crate's dependencies as the crate table states)",
        files.len(),
        driver::MAX_OPTION_FILES
    );
    Ok(ExitCode::SUCCESS)
}

/// The library's sources under `root`, and every violation of ARCHITECTURE.md's limits in them: the
/// limits and layers ([`check`]), the rule homes ([`rule_homes`]) and the pipeline ([`driver`]).
pub fn of_workspace(root: &Path) -> Result<(Vec<SourceFile>, Vec<Violation>)> {
    let files = read_sources(root)?;
    let layers = Layers::of_architecture(root)?;
    let mut violations = check(&files, &rule_ids(), &layers);
    let homes = rule_homes::check(&files, &rule_ids());
    violations.extend(homes.into_iter().map(Violation::RuleHome));
    violations.extend(driver::check(&files).into_iter().map(Violation::Driver));
    violations.extend(crates::check(root)?.into_iter().map(Violation::Crate));
    Ok((files, violations))
}

/// Every rule id of the catalogue.
pub fn rule_ids() -> BTreeSet<String> {
    wirecheck::rules::RULES
        .iter()
        .map(|rule| rule.id.to_owned())
        .collect()
}

/// The source directories of the library: `wirecheck`'s and those of the stages split into crates of
/// their own (the model, extraction, the compatibility engine), whose modules keep the names `wirecheck` gives them
/// (`wirecheck::compat` is `wirecheck_compat::compat`).
pub const LIBRARY_SOURCES: [&str; 7] = [
    "src",
    "model/src",
    "extract/src",
    "compat/src",
    "workspace/src",
    "report/src",
    "cli/src",
];

/// Every `.rs` file under the [`LIBRARY_SOURCES`] of `root`, sorted by path.
pub fn read_sources(root: &Path) -> Result<Vec<SourceFile>> {
    let mut paths = Vec::new();
    for dir in LIBRARY_SOURCES {
        collect_rs(&root.join(dir), &mut paths)?;
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            Ok(SourceFile {
                path: relative.to_string_lossy().replace('\\', "/"),
                text,
            })
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every violation in `files` (paths relative to the crate root, under `src/`).
pub fn check(files: &[SourceFile], rule_ids: &BTreeSet<String>, layers: &Layers) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut imports = Imports::default();
    for file in files {
        let lines = file.text.lines().count();
        if lines > MAX_FILE_LINES {
            violations.push(Violation::LongFile {
                file: file.path.clone(),
                lines,
            });
        }
        let tree = match syn::parse_file(&file.text) {
            Ok(tree) => tree,
            Err(error) => {
                violations.push(Violation::Unparsable {
                    file: file.path.clone(),
                    error: error.to_string(),
                });
                continue;
            }
        };
        let module = module_of(&file.path);
        let mut visitor = FileVisitor {
            file: &file.path,
            module: module.clone(),
            long_functions: Vec::new(),
            imports: &mut imports,
        };
        visitor.visit_file(&tree);
        violations.extend(visitor.long_functions);
        imports.modules.insert(module);
        if file.path != CATALOGUE {
            violations.extend(rule_id_literals(&file.path, &file.text, rule_ids));
        }
    }
    violations.extend(imports.cycles());
    violations.extend(layers.check(&imports.top_level_uses()));
    violations.sort();
    violations
}

/// The module path of a file of the library, after its crate's `src/`: `src/lib.rs` → `[]`,
/// `src/check/mod.rs` and `compat/src/compat.rs` → their module, `compat/src/compat/objects.rs` →
/// `["compat", "objects"]`.
pub(crate) fn module_of(path: &str) -> Vec<String> {
    let inner = path.split_once("src/").map_or(path, |(_, inner)| inner);
    let inner = inner.trim_end_matches(".rs");
    let mut segments: Vec<String> = inner.split('/').map(str::to_owned).collect();
    if matches!(
        segments.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segments.pop();
    }
    segments
}

/// Finds long functions, inline modules and the paths each module refers to.
struct FileVisitor<'a> {
    file: &'a str,
    /// The module being visited (inline `mod` blocks push onto it).
    module: Vec<String>,
    long_functions: Vec<Violation>,
    imports: &'a mut Imports,
}

impl FileVisitor<'_> {
    fn function(&mut self, name: &syn::Ident, start: proc_macro2::Span, end: proc_macro2::Span) {
        let (first, last) = (start.start().line, end.end().line);
        let lines = last + 1 - first;
        if lines > MAX_FUNCTION_LINES {
            self.long_functions.push(Violation::LongFunction {
                file: self.file.to_owned(),
                line: first,
                name: name.to_string(),
                lines,
            });
        }
    }

    /// Records a path that starts with `crate`, `super` or `self` as a reference of the current module.
    fn reference(&mut self, segments: &[String]) {
        let Some(target) = absolute(&self.module, segments) else {
            return;
        };
        self.imports
            .references
            .entry(self.module.clone())
            .or_default()
            .insert(target);
    }
}

impl<'ast> Visit<'ast> for FileVisitor<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function(&item.sig.ident, item.sig.fn_token.span, item.block.span());
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.function(&item.sig.ident, item.sig.fn_token.span, item.block.span());
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.function(&item.sig.ident, item.sig.fn_token.span, block.span());
        }
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.attrs.iter().any(is_cfg_test) {
            let mut path = self.module.clone();
            path.push(item.ident.to_string());
            self.imports.test_modules.insert(path);
        }
        if item.content.is_some() {
            self.module.push(item.ident.to_string());
            self.imports.modules.insert(self.module.clone());
            syn::visit::visit_item_mod(self, item);
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        for path in paths {
            self.reference(&path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.reference(&segments);
        syn::visit::visit_path(self, path);
    }
}

/// `#[cfg(test)]`.
fn is_cfg_test(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("cfg")
        && attr
            .parse_args::<syn::Ident>()
            .is_ok_and(|ident| ident == "test")
}

/// The paths a use tree names (`a::{b, c::d}` → `a::b`, `a::c::d`); a glob names its module.
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => out.push(with(prefix, &name.ident)),
        syn::UseTree::Rename(rename) => out.push(with(prefix, &rename.ident)),
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix, out);
            }
        }
    }
}

fn with(prefix: &[String], ident: &syn::Ident) -> Vec<String> {
    let mut path = prefix.to_vec();
    path.push(ident.to_string());
    path
}

/// The absolute path (from the crate root) of a path written in `module`, when it starts with `crate`,
/// `super` or `self`; other paths name other crates or the module's own items and children.
fn absolute(module: &[String], segments: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match segments.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super" | "self") => module.to_vec(),
        _ => return None,
    };
    let mut rest = segments;
    if rest.first().is_some_and(|s| s == "crate") {
        rest = &rest[1..];
    } else {
        while let Some(first) = rest.first() {
            match first.as_str() {
                "super" => {
                    base.pop()?;
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The modules of the crate and the absolute paths each refers to.
#[derive(Default)]
struct Imports {
    modules: BTreeSet<Vec<String>>,
    /// Modules declared under `#[cfg(test)]`: their uses are left out of the layers (tests may reach
    /// anything), not out of the cycles.
    test_modules: BTreeSet<Vec<String>>,
    references: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

impl Imports {
    /// The longest prefix of `path` that is a module.
    fn module_of_path(&self, path: &[String]) -> Vec<String> {
        (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|prefix| self.modules.contains(prefix))
            .unwrap_or_default()
    }

    /// The edges between modules of one parent: `from` refers to something in or under `to`, where `from`
    /// and `to` are children of the same module (a reference from `a::x::y` to `a::z` is an edge `a::x` →
    /// `a::z`). References to ancestors and descendants are not edges.
    fn edges(&self) -> BTreeSet<(Vec<String>, Vec<String>)> {
        let mut edges = BTreeSet::new();
        for (from, targets) in &self.references {
            for target in targets {
                let to = self.module_of_path(target);
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if common == from.len() || common == to.len() {
                    continue;
                }
                edges.insert((from[..=common].to_vec(), to[..=common].to_vec()));
            }
        }
        edges
    }

    /// The top-level modules each top-level module uses (through any of its submodules).
    fn top_level_uses(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut uses: BTreeMap<String, BTreeSet<String>> = self
            .modules
            .iter()
            .filter(|module| module.len() == 1)
            .map(|module| (module[0].clone(), BTreeSet::new()))
            .collect();
        for (from, targets) in &self.references {
            let in_tests = (1..=from.len()).any(|n| self.test_modules.contains(&from[..n]));
            let Some(from) = from.first().filter(|_| !in_tests) else {
                continue;
            };
            for to in targets
                .iter()
                .filter_map(|target| self.module_of_path(target).first().cloned())
            {
                if &to != from {
                    uses.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        uses
    }

    /// One violation per cycle found (each strongly connected set of modules once).
    fn cycles(&self) -> Vec<Violation> {
        let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (from, to) in self.edges() {
            graph.entry(from).or_default().insert(to);
        }
        let mut reported: BTreeSet<Vec<String>> = BTreeSet::new();
        let mut violations = Vec::new();
        for start in graph.keys() {
            if reported.contains(start) {
                continue;
            }
            if let Some(cycle) = cycle_through(&graph, start) {
                reported.extend(cycle.iter().cloned());
                violations.push(Violation::ImportCycle {
                    modules: cycle
                        .iter()
                        .map(|m| format!("crate::{}", m.join("::")))
                        .collect(),
                });
            }
        }
        violations
    }
}

/// A shortest cycle from `start` back to itself, breadth first.
fn cycle_through(
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    start: &Vec<String>,
) -> Option<Vec<Vec<String>>> {
    let mut previous: BTreeMap<&Vec<String>, &Vec<String>> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten() {
            if next == start {
                let mut cycle = vec![node.clone()];
                let mut at = node;
                while at != start {
                    at = previous[at];
                    cycle.push(at.clone());
                }
                cycle.reverse();
                return Some(cycle);
            }
            if !previous.contains_key(next) {
                previous.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// ARCHITECTURE.md's layer table: for each top-level module of `src/`, the top-level modules it may
/// use. The table follows the line [`LAYERS_MARKER`]; each row is `` | `module` (, `module`) | `used`, ... | ``.
pub struct Layers {
    /// `None`: nothing to check (unit tests of the other limits).
    allowed: Option<BTreeMap<String, BTreeSet<String>>>,
}

/// The line of ARCHITECTURE.md after which the layer table starts.
pub const LAYERS_MARKER: &str = "<!-- layers: checked by `cargo xtask architecture` -->";

impl Layers {
    /// No layer table: only the other limits are checked (the unit tests of those limits).
    #[cfg(test)]
    pub fn unchecked() -> Layers {
        Layers { allowed: None }
    }

    /// The table of `<root>/ARCHITECTURE.md`.
    pub fn of_architecture(root: &Path) -> Result<Layers> {
        let path = root.join("ARCHITECTURE.md");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        Layers::parse(&text).with_context(|| {
            format!(
                "{}: no layer table after the line {LAYERS_MARKER}",
                path.display()
            )
        })
    }

    /// The table in `text`, if it has one.
    pub fn parse(text: &str) -> Option<Layers> {
        let mut lines = text.lines().skip_while(|line| line.trim() != LAYERS_MARKER);
        lines.next()?;
        let mut allowed = BTreeMap::new();
        let rows = lines
            .skip_while(|line| !line.starts_with('|'))
            .take_while(|line| line.starts_with('|'))
            .skip(2);
        for row in rows {
            let cells: Vec<&str> = row.split('|').collect();
            let (Some(modules), Some(uses)) = (cells.get(1), cells.get(2)) else {
                continue;
            };
            let uses: BTreeSet<String> = backticked(uses).collect();
            for module in backticked(modules) {
                allowed.insert(module, uses.clone());
            }
        }
        (!allowed.is_empty()).then_some(Layers {
            allowed: Some(allowed),
        })
    }

    /// Every use the table does not allow, every claim no use backs, every module without a row.
    fn check(&self, uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<Violation> {
        let Some(allowed) = &self.allowed else {
            return Vec::new();
        };
        let mut violations = Vec::new();
        for (from, used) in uses {
            let Some(may) = allowed.get(from) else {
                violations.push(Violation::UnlistedModule {
                    module: from.clone(),
                });
                continue;
            };
            violations.extend(used.difference(may).map(|to| Violation::UndeclaredUse {
                from: from.clone(),
                to: to.clone(),
            }));
            violations.extend(may.difference(used).map(|to| Violation::StaleClaim {
                from: from.clone(),
                to: to.clone(),
            }));
        }
        violations.extend(
            allowed
                .keys()
                .filter(|module| !uses.contains_key(*module))
                .map(|module| Violation::UnlistedModule {
                    module: module.clone(),
                }),
        );
        violations
    }
}

/// The `` `words` `` of a table cell.
fn backticked(cell: &str) -> impl Iterator<Item = String> + '_ {
    cell.split('`').skip(1).step_by(2).map(str::to_owned)
}

/// String literals anywhere in the file's tokens (macro arguments included) whose value is a rule id.
fn rule_id_literals(file: &str, text: &str, rule_ids: &BTreeSet<String>) -> Vec<Violation> {
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    literals(tokens, &mut |literal| {
        let token = TokenStream::from(TokenTree::Literal(literal.clone()));
        if let Ok(string) = syn::parse2::<syn::LitStr>(token) {
            let value = string.value();
            if rule_ids.contains(&value) {
                out.push(Violation::RuleIdLiteral {
                    file: file.to_owned(),
                    line: literal.span().start().line,
                    id: value,
                });
            }
        }
    });
    out
}

fn literals(tokens: TokenStream, found: &mut impl FnMut(&proc_macro2::Literal)) {
    for token in tokens {
        match token {
            TokenTree::Group(group) => literals(group.stream(), found),
            TokenTree::Literal(literal) => found(&literal),
            TokenTree::Ident(_) | TokenTree::Punct(_) => {}
        }
    }
}

/// A source file of `text` at `path`, for the tests of the checks.
#[cfg(test)]
fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.to_owned(),
        text: text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> BTreeSet<String> {
        BTreeSet::from(["field_removed".to_owned()])
    }

    #[test]
    fn this_crate_is_within_the_limits() {
        let (files, violations) = of_workspace(&crate::workspace_root()).unwrap();
        assert!(files.len() > 20, "src/ was not found");
        assert!(
            violations.is_empty(),
            "the library breaks the limits of ARCHITECTURE.md:\n{}",
            violations
                .iter()
                .map(|v| format!("  {v}\n"))
                .collect::<String>()
        );
    }

    #[test]
    fn a_long_function_and_a_long_file_are_reported() {
        let body = "    let _ = 1;\n".repeat(MAX_FUNCTION_LINES - 2);
        let ok = format!("fn ok() {{\n{body}}}\n");
        let long = format!("impl S {{\n    fn long() {{\n{body} let _ = 2;\n}}\n}}\n");
        let violations = check(
            &[file("src/a.rs", &ok), file("src/b.rs", &long)],
            &ids(),
            &Layers::unchecked(),
        );
        assert_eq!(
            violations,
            vec![Violation::LongFunction {
                file: "src/b.rs".into(),
                line: 2,
                name: "long".into(),
                lines: MAX_FUNCTION_LINES + 1,
            }]
        );
        let big = "const X: u8 = 0;\n".repeat(MAX_FILE_LINES + 1);
        assert_eq!(
            check(&[file("src/big.rs", &big)], &ids(), &Layers::unchecked()),
            vec![Violation::LongFile {
                file: "src/big.rs".into(),
                lines: MAX_FILE_LINES + 1
            }]
        );
    }

    #[test]
    fn modules_importing_each_other_are_a_cycle_at_any_depth() {
        let files = [
            file("src/lib.rs", "mod a; mod b; mod c;"),
            file("src/a.rs", "use crate::b::X;"),
            file("src/b.rs", "fn f() { crate::c::g(); }"),
            file("src/c/mod.rs", "mod inner;"),
            file("src/c/inner.rs", "use super::super::a::Y;"),
        ];
        assert_eq!(
            check(&files, &ids(), &Layers::unchecked()),
            vec![Violation::ImportCycle {
                modules: vec!["crate::a".into(), "crate::b".into(), "crate::c".into()],
            }]
        );
        let siblings = [
            file("src/lib.rs", "mod p;"),
            file("src/p/mod.rs", "mod x; mod y; use x::X;"),
            file("src/p/x.rs", "use super::y::Y; use crate::p::Z;"),
            file("src/p/y.rs", "use super::x::X;"),
        ];
        assert_eq!(
            check(&siblings, &ids(), &Layers::unchecked()),
            vec![Violation::ImportCycle {
                modules: vec!["crate::p::x".into(), "crate::p::y".into()]
            }]
        );
    }

    #[test]
    fn parents_and_children_and_one_way_imports_are_no_cycle() {
        let files = [
            file("src/lib.rs", "mod a; mod b; pub use a::A;"),
            file("src/a/mod.rs", "mod child; use child::C; use crate::b::B;"),
            file(
                "src/a/child.rs",
                "use super::A; use crate::a::D; use crate::b::B;",
            ),
            file(
                "src/b.rs",
                "pub struct B; use crate::A; mod tests { use super::*; }",
            ),
        ];
        assert_eq!(check(&files, &ids(), &Layers::unchecked()), vec![]);
    }

    #[test]
    fn a_rule_id_string_is_reported_outside_the_catalogue_only() {
        let text = "fn f() { assert_eq!(x, \"field_removed\"); let _ = \"rule = \\\"field_removed\\\"\"; }";
        assert_eq!(
            check(
                &[file("src/report.rs", text), file(CATALOGUE, text)],
                &ids(),
                &Layers::unchecked()
            ),
            vec![Violation::RuleIdLiteral {
                file: "src/report.rs".into(),
                line: 1,
                id: "field_removed".into(),
            }]
        );
    }

    #[test]
    fn the_layer_table_is_checked_both_ways() {
        let table = format!(
            "text\n{LAYERS_MARKER}\n\n| module | uses |\n|---|---|\n| `model` | |\n| `compat`, `report` | `model`, `rules` |\n"
        );
        let layers = Layers::parse(&table).unwrap();
        let files = [
            file("src/model.rs", "pub struct M;"),
            file("src/compat.rs", "use crate::model::M;"),
            file(
                "src/report.rs",
                "use crate::model::M; fn f() { crate::compat::g(); }",
            ),
            file("src/cli.rs", ""),
        ];
        let violations = check(&files, &ids(), &layers);
        let said: Vec<String> = violations.iter().map(ToString::to_string).collect();
        assert_eq!(
            violations,
            vec![
                Violation::UndeclaredUse {
                    from: "report".into(),
                    to: "compat".into()
                },
                Violation::StaleClaim {
                    from: "compat".into(),
                    to: "rules".into()
                },
                Violation::StaleClaim {
                    from: "report".into(),
                    to: "rules".into()
                },
                Violation::UnlistedModule {
                    module: "cli".into()
                },
            ],
            "{said:#?}"
        );
        assert!(Layers::parse("no table here").is_none());
    }
}
