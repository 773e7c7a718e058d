//! The declaration phase of a snapshot: the protocols and messages the module trees declare, read
//! before any type is lowered. It holds the revision's name resolution directly; no type is lowered
//! here, so nothing is recorded. It then hands `Names` over to the type lowering's
//! [`Revision`](super::recorded::Revision), the one door through which a recorded lowering may ask.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::super::cache::ModuleFile;
use super::super::cfg::{self, Truth};
use super::super::declarations::{Declaration, Declared, Invalid, MessageDeclared};
use super::super::names::{NameTarget, Names};
use super::super::syntax::{derives_named, item_attrs};
use super::super::tree::ModuleTree;
use super::super::{ExtractError, Keep};
use super::{KeepFilter, invalid_declaration};
use crate::model::{ExtractNote, MessageDecl, ProtocolDecl, Snapshot};
use crate::{Kind, ResponseMode};
use syn::Item;

/// The protocols declared so far.
#[derive(Default)]
struct Protocols {
    /// Protocol names by the id of the type item that declares them.
    by_item: FxHashMap<usize, String>,
    /// Which messages of each protocol are kept.
    keeps: FxHashMap<String, Keep>,
}

/// What [`Declaring::message`] keeps.
struct MessageFilter<'f> {
    keep: KeepFilter<'f>,
    /// Only `kind = "record"` messages are kept (no protocol is kept whole).
    records_only: bool,
    protocols: &'f Protocols,
}

/// The name of a declaration's item, without `r#`.
fn declared_name(declaration: &Declaration) -> &str {
    let name = declaration.name.as_str();
    name.strip_prefix("r#").unwrap_or(name)
}

/// The declaration phase: name resolution over the module trees, and the notes so far (those of
/// mounting the trees first).
pub(super) struct Declaring<'a> {
    pub(super) names: Names<'a>,
    pub(super) notes: Vec<ExtractNote>,
}

impl<'a> Declaring<'a> {
    /// The protocols and messages of the module trees (the messages `keep` asks for), with the ids of
    /// the messages' type items, in order, for the type lowering.
    pub(super) fn declarations(
        &mut self,
        tree: &'a ModuleTree<'a>,
        keep: KeepFilter<'_>,
    ) -> Result<(Snapshot, VecDeque<usize>), ExtractError> {
        // With a filter, only files that name `Protocol` can declare one (and, when only records are
        // kept, only files that say `record` can declare a kept message): older releases parse only those
        // of their changed files.
        let declarations = if keep.is_none() {
            tree.declarations(&|_| true)?
        } else {
            tree.declarations(&|blob| blob.mentions("Protocol"))?
        };
        let mut snapshot = Snapshot::default();
        // Protocols first: messages name them.
        let protocols = self.protocols(&declarations, keep, &mut snapshot)?;
        // With a filter that keeps no protocol whole, only records need their protocol resolved.
        let records_only =
            keep.is_some() && !protocols.keeps.values().any(|kept| *kept == Keep::All);
        let declarations = match (keep, records_only) {
            (None, _) => declarations,
            (Some(_), true) => tree.declarations(&|blob| blob.mentions("record"))?,
            (Some(_), false) => tree.declarations(&|_| true)?,
        };
        let filter = MessageFilter {
            keep,
            records_only,
            protocols: &protocols,
        };
        let mut queue: VecDeque<usize> = VecDeque::new();
        for &(file, declaration) in &declarations {
            let Declared::Message(attrs) = &declaration.declared else {
                continue;
            };
            if let Some((id, message)) =
                self.message(file, declaration, attrs, &filter, &snapshot)?
            {
                queue.push_back(id);
                snapshot.messages.push(message);
            }
        }
        Ok((snapshot, queue))
    }

    /// The protocol declarations, into `snapshot`; a macro that writes declarations gets a note.
    fn protocols(
        &mut self,
        declarations: &[(&'a ModuleFile, &'a Declaration)],
        keep: KeepFilter<'_>,
        snapshot: &mut Snapshot,
    ) -> Result<Protocols, ExtractError> {
        let mut protocols = Protocols::default();
        for &(file, declaration) in declarations {
            let path = file.path.as_str();
            let attrs = match &declaration.declared {
                Declared::WireMacro => {
                    self.notes.push(ExtractNote {
                        message: format!(
                            "macro `{}` writes #[wire] declarations that wirecheck cannot expand: messages it generates are not checked; declare them without the macro",
                            declaration.name
                        ),
                        location: declaration.at.location(path),
                    });
                    continue;
                }
                Declared::Protocol(attrs) => attrs,
                Declared::Message(_) => continue,
            };
            let module = [file.module.as_slice(), &declaration.inline].concat();
            let Some(item) = self.declaration_syntax(file, declaration) else {
                continue;
            };
            if !self.declared_in_build((file, declaration), &module, item, "Protocol") {
                continue;
            }
            let id = self.intern_declared(file, &module, declaration, item);
            let attrs = attrs.as_ref().map_err(|invalid| {
                invalid_declaration(
                    path,
                    invalid,
                    format!("invalid #[wire] on protocol `{}`", declaration.name),
                )
            })?;
            let decl = ProtocolDecl {
                name: attrs.name.clone(),
                rust_path: self.names.canonical(id),
                version: attrs.version.clone(),
                min_compatible: attrs.min_compatible.clone(),
                upgrade: attrs.upgrade,
                format: attrs.format,
                location: declaration.at.location(path),
            };
            if let Some(first) = snapshot
                .protocols
                .iter()
                .find(|earlier| earlier.name == decl.name)
            {
                return Err(ExtractError::DuplicateProtocol {
                    name: decl.name.clone(),
                    first: first.location.clone(),
                    second: decl.location,
                });
            }
            protocols.by_item.insert(id, decl.name.clone());
            protocols.keeps.insert(
                decl.name.clone(),
                keep.map_or(Keep::All, |keep| keep(&decl)),
            );
            snapshot.protocols.push(decl);
        }
        Ok(protocols)
    }

    /// A message declaration with the id of its type, unless the filter drops it or its protocol cannot
    /// be found (a note then says so).
    fn message(
        &mut self,
        file: &'a ModuleFile,
        declaration: &'a Declaration,
        attrs: &'a Result<MessageDeclared, Invalid>,
        filter: &MessageFilter<'_>,
        snapshot: &Snapshot,
    ) -> Result<Option<(usize, MessageDecl)>, ExtractError> {
        let path = file.path.as_str();
        let name = &declaration.name;
        let Some(item) = self.declaration_syntax(file, declaration) else {
            return Ok(None);
        };
        let attrs = match attrs {
            Ok(attrs) => attrs,
            Err(invalid) if filter.keep.is_none() => {
                return Err(invalid_declaration(
                    path,
                    invalid,
                    format!("invalid #[wire] on message `{name}`"),
                ));
            }
            Err(_) => return Ok(None),
        };
        let message_kind = attrs.kind;
        if filter.records_only && message_kind != Kind::Record {
            return Ok(None);
        }
        let module = [file.module.as_slice(), &declaration.inline].concat();
        if !self.declared_in_build((file, declaration), &module, item, "Message") {
            return Ok(None);
        }
        let id = self.intern_declared(file, &module, declaration, item);
        let Some(protocol) = self.message_protocol(&module, &attrs.protocol, filter, snapshot)
        else {
            self.notes.push(ExtractNote {
                message: format!("message `{name}`: its `protocol` does not name a #[derive(Protocol)] type wirecheck can find; the message is skipped"),
                location: attrs.protocol_at.location(path),
            });
            return Ok(None);
        };
        if !filter
            .protocols
            .keeps
            .get(&protocol)
            .copied()
            .unwrap_or(Keep::All)
            .keeps(message_kind)
        {
            return Ok(None);
        }
        let (response, response_path) = match (&attrs.responds, &attrs.streams) {
            (Some(p), _) => (ResponseMode::Single, Some(p)),
            (None, Some(p)) => (ResponseMode::Stream, Some(p)),
            (None, None) => (ResponseMode::None, None),
        };
        let response_type = response_path.map(|response_path| {
            match self.names.resolve(&module, response_path).target {
                NameTarget::Type(response_id) => self.names.canonical(response_id),
                NameTarget::External(segments) | NameTarget::Module(segments) => {
                    segments.join("::")
                }
            }
        });
        let message = MessageDecl {
            protocol,
            name: declared_name(declaration).to_owned(),
            rust_path: self.names.canonical(id),
            topic: attrs.topic.clone(),
            kind: message_kind,
            response,
            response_type,
            since: attrs.since.clone(),
            allow: attrs.allow.clone(),
            location: declaration.at.location(path),
        };
        Ok(Some((id, message)))
    }

    /// The syntax of a declaration's item, when the lowering needs it: when its `cfg` decides whether
    /// it declares. `Some(None)` otherwise: a declaration is read from its item's syntax, in this check
    /// or in one whose declarations the store kept for the same blob, so the item parses, and a
    /// replayed lowering needs no syntax. `None` when it does not parse (the error is kept).
    fn declaration_syntax(
        &mut self,
        file: &'a ModuleFile,
        declaration: &Declaration,
    ) -> Option<Option<&'a Item>> {
        if !declaration.gated {
            return Some(None);
        }
        self.names.declared_item(file, declaration).map(Some)
    }

    /// The id of a declaration's item (`item`: its syntax, when parsed), in `module`.
    fn intern_declared(
        &mut self,
        file: &'a ModuleFile,
        module: &[String],
        declaration: &Declaration,
        item: Option<&'a Item>,
    ) -> usize {
        let name = declared_name(declaration);
        self.names
            .intern(file, module, declaration.item.clone(), name, item)
    }

    /// The name of the protocol a message's `protocol = Path` names.
    fn message_protocol(
        &mut self,
        module: &[String],
        protocol_path: &[String],
        filter: &MessageFilter<'_>,
        snapshot: &Snapshot,
    ) -> Option<String> {
        match self.names.resolve(module, protocol_path).target {
            NameTarget::Type(protocol_id) => filter.protocols.by_item.get(&protocol_id).cloned(),
            NameTarget::External(segments) => {
                // A protocol declared in another crate of the workspace, named through a path the
                // resolver could not follow: match on the type's name when that is unambiguous.
                let last = segments.last().cloned().unwrap_or_default();
                let matching: Vec<&ProtocolDecl> = snapshot
                    .protocols
                    .iter()
                    .filter(|protocol| {
                        protocol.rust_path.rsplit("::").next() == Some(last.as_str())
                    })
                    .collect();
                (matching.len() == 1).then(|| matching[0].name.clone())
            }
            NameTarget::Module(_) => None,
        }
    }

    /// Whether a message's or protocol's item exists in the build checked (one whose `cfg` depends on
    /// the target or profile is kept).
    pub(super) fn item_built(&self, module: &[String], item: &syn::Item) -> bool {
        cfg::active(item_attrs(item), self.names.features_of(module)) != Truth::No
    }

    /// Whether `declaration` of `file` (`derive`: `Message` or `Protocol`) on `item` in `module` exists
    /// in the build checked: its module (every `mod` on the way) and its item are in the build, and the
    /// derive is still there once the build's `cfg_attr`s are applied (a derive behind a feature that is
    /// off declares nothing). An item without `cfg` or `cfg_attr` is in every build of its module, with
    /// the derive it was found with (`item`: its syntax, which only an item without `cfg` may lack).
    pub(super) fn declared_in_build(
        &self,
        (file, declaration): (&ModuleFile, &Declaration),
        module: &[String],
        item: Option<&syn::Item>,
        derive: &str,
    ) -> bool {
        if !self
            .names
            .module_in_build(file, module, declaration.offset())
        {
            return false;
        }
        // Only an item without a `cfg` is left unparsed (`Declaring::declaration_syntax`).
        let (true, Some(item)) = (declaration.gated, item) else {
            return true;
        };
        if !self.item_built(module, item) {
            return false;
        }
        // Undecided predicates are noted where the type is lowered.
        let mut undecided = Vec::new();
        let features = self.names.features_of(module);
        derives_named(
            &cfg::applied(item_attrs(item), features, &mut undecided),
            derive,
        )
    }
}
