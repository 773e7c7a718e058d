//! The `allow` declarations of both releases by where they are written: a finding is allowed by an
//! allow on the field, variant or message it points at, whichever rule found it and however it was
//! placed. Placing a finding and reading the allows at its place are the engine's, not each rule's.

use std::collections::HashMap;

use crate::model::{AllowDecl, Body, Field, Location, ModelView};

/// The allows of two releases, by file and line of the item that carries them.
#[derive(Debug, Default)]
pub struct AllowsAt<'m> {
    by_file: HashMap<&'m str, HashMap<u32, Vec<&'m AllowDecl>>>,
}

impl<'m> AllowsAt<'m> {
    /// The allows on `protocol`'s messages and on every field and variant of the types of `releases`.
    pub fn of(releases: [ModelView<'m>; 2], protocol: &str) -> Self {
        let mut allows = AllowsAt::default();
        for view in releases {
            for message in view.messages_of(protocol) {
                allows.add(&message.location, message.allow.as_ref());
            }
            for def in view.type_defs() {
                match &def.body {
                    Body::Struct { fields, .. } => allows.add_fields(fields),
                    Body::Enum { variants } => {
                        for variant in variants {
                            allows.add(&variant.location, variant.allow.as_ref());
                            allows.add_fields(&variant.fields);
                        }
                    }
                    _ => {}
                }
            }
        }
        allows
    }

    fn add_fields(&mut self, fields: &'m [Field]) {
        for field in fields {
            self.add(&field.location, field.allow.as_ref());
        }
    }

    fn add(&mut self, location: &'m Location, allow: Option<&'m AllowDecl>) {
        if let Some(allow) = allow {
            let lines = self.by_file.entry(location.file.as_str()).or_default();
            lines.entry(location.line).or_default().push(allow);
        }
    }

    /// The allows written on the item at `location`'s line.
    pub fn at(&self, location: &Location) -> &[&'m AllowDecl] {
        let lines = self.by_file.get(location.file.as_str());
        lines
            .and_then(|lines| lines.get(&location.line))
            .map_or(&[], Vec::as_slice)
    }
}
