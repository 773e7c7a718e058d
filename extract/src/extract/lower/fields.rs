//! The fields of a struct or variant: their wire names, skips and defaults from serde's attributes, and
//! what serde's companions (serde_with's adapters and `with` modules, a field's own `with` functions)
//! make of their types.

use syn::spanned::Spanned;
use syn::{Attribute, Fields};

use super::super::names::NameTarget;
use super::super::serde_attrs::{self, ContainerSerde, MemberSerde, Problems, RenameRule};
use super::super::syntax::{tokens_text, unraw};
use super::super::{known, location, note, serde_with};
use super::{Lowering, TypeScope};
use crate::model::{Custom, Field, SkipSer, Style, Ty};

impl Lowering<'_> {
    /// The fields of a struct or variant, named by their own serde attributes or else `rule`.
    pub(super) fn fields(
        &mut self,
        scope: &TypeScope<'_>,
        fields: &Fields,
        container: &ContainerSerde,
        rule: serde_attrs::SerDe<RenameRule>,
        reached: &mut Vec<usize>,
        problems: &mut Problems,
    ) -> (Style, Vec<Field>) {
        let style = match fields {
            Fields::Named(_) => Style::Named,
            Fields::Unnamed(_) => Style::Tuple,
            Fields::Unit => Style::Unit,
        };
        let mut out = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            if !self.built(scope, &field.attrs, || field.span()) {
                continue;
            }
            let attrs = self.applied(scope, &field.attrs);
            let field_serde: MemberSerde = serde_attrs::member(&attrs, problems);
            let rust_name = field.ident.as_ref().map_or_else(|| i.to_string(), unraw);
            let (ser_name, de_names) = wire_names(&field_serde, &rule, &rust_name);
            let (since, allow) = self.member_wire(scope.file, &attrs);
            let span = field
                .ident
                .as_ref()
                .map_or_else(|| field.ty.span(), |ident| ident.span());
            // The crate types the field's Rust type names: on the wire unless an adapter replaces them.
            let mut field_reached = Vec::new();
            let mut lowered = Field {
                rust_name,
                ser_name,
                de_names,
                ty: self.ty(scope, &field.ty, &mut field_reached),
                default: field_serde.default || container.default,
                skip_ser: skip_ser(&field_serde),
                skip_de: field_serde.skip_de,
                flatten: field_serde.flatten,
                custom: custom(&field_serde),
                since,
                allow,
                location: location(scope.file, span),
            };
            let skip_none = container.skip_serializing_none;
            let adapted = self.companion_field(
                scope,
                field,
                &attrs,
                &field_serde,
                skip_none,
                &mut lowered,
                reached,
            );
            if adapted {
                let mut on_wire = Vec::new();
                lowered.ty.named_paths(&mut on_wire);
                field_reached.retain(|&id| on_wire.contains(&self.rev.canonical(id).as_str()));
            }
            reached.extend(field_reached);
            out.push(lowered);
        }
        for field in &mut out {
            self.with_shape(scope, field);
            self.with_functions(scope, field, reached);
        }
        (style, out)
    }

    /// serde's companions on a field (see `serde_with`): `#[skip_serializing_none]` on the container,
    /// `#[serde_as(...)]`, and `with` modules of serde_with, which replace the field's custom functions by
    /// the model type of what they write and read. One not modelled stays custom, with a note. Whether
    /// an adapter replaced the field's type.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn companion_field(
        &mut self,
        scope: &TypeScope<'_>,
        field: &syn::Field,
        attrs: &[Attribute],
        member: &MemberSerde,
        skip_none: bool,
        out: &mut Field,
        reached: &mut Vec<usize>,
    ) -> bool {
        if skip_none
            && out.skip_ser == SkipSer::Never
            && serde_with::skipped_when_none(field, member.skip_ser_if.is_some())
        {
            out.skip_ser = SkipSer::If("Option::is_none".to_owned());
        }
        let adapted = match serde_with::serde_as(attrs) {
            Some(Ok(serde_as)) => self.serde_as_ty(scope, field, &serde_as, member, out, reached),
            Some(Err(error)) => Err(format!("cannot read #[serde_as(...)]: {error}")),
            None => match with_module_of(member) {
                Some(module) => self.with_module_ty(scope, &module, out, reached),
                None => return false,
            },
        };
        match adapted {
            Ok(ty) => {
                out.custom = None;
                // A field read by a custom deserializer is required even as an `Option` (serde's
                // missing-field rule holds only for derived reads): a choice of one reading says so.
                out.ty = match ty {
                    Ty::Option { .. } if !out.default => Ty::Choice {
                        writes: Box::new(ty.clone()),
                        reads: vec![ty],
                    },
                    ty => ty,
                };
                true
            }
            Err(message) => {
                self.rev.push_note(note(
                    scope.file,
                    field.ty.span(),
                    format!("{message}: the field is compared as custom (de)serialization code"),
                ));
                false
            }
        }
    }

    /// A field's `#[serde_as(as | serialize_as | deserialize_as = "...")]`: the model type, with the
    /// `#[serde(default)]` serde_as adds (both the adapter and the field are `Option`); the field's
    /// `custom` records the adapters as serde sees them, for when they are not modelled.
    pub(super) fn serde_as_ty(
        &mut self,
        scope: &TypeScope<'_>,
        field: &syn::Field,
        serde_as: &serde_with::SerdeAs,
        member: &MemberSerde,
        out: &mut Field,
        reached: &mut Vec<usize>,
    ) -> Result<Ty, String> {
        let (ser, de) = match &serde_as.both {
            Some(both) => (Some(both), Some(both)),
            None => (serde_as.ser.as_ref(), serde_as.de.as_ref()),
        };
        let with = |adapter: &syn::Type, side: &str| {
            format!("serde_with::As::<{}>::{side}", tokens_text(adapter))
        };
        out.custom = Some(Custom {
            ser: ser
                .map(|a| with(a, "serialize"))
                .or(out.custom.as_ref().and_then(|c| c.ser.clone())),
            de: de
                .map(|a| with(a, "deserialize"))
                .or(out.custom.as_ref().and_then(|c| c.de.clone())),
        });
        if let Some(de) = de
            && !serde_as.no_default
            && !member.default
            && serde_with::is_std_option(de)
            && serde_with::is_std_option(&field.ty)
        {
            out.default = true;
        }
        let field_ty = out.ty.clone();
        let mut adapt = |adapter: Option<&syn::Type>| -> Result<Ty, String> {
            match adapter {
                Some(adapter) => self.adapt(scope, adapter, &field_ty, reached),
                None => Ok(field_ty.clone()),
            }
        };
        let (writes, reads) = (adapt(ser)?, adapt(de)?);
        Ok(if writes == reads {
            writes
        } else {
            Ty::Choice {
                writes: Box::new(writes),
                reads: vec![reads],
            }
        })
    }

    /// The model type of `field` through the serde_with adapter `adapter`.
    pub(super) fn adapt(
        &mut self,
        scope: &TypeScope<'_>,
        adapter: &syn::Type,
        field: &Ty,
        reached: &mut Vec<usize>,
    ) -> Result<Ty, String> {
        let mut lower = |ty: &syn::Type| self.ty(scope, ty, reached);
        let mut adapters = serde_with::Adapters {
            lower: &mut lower,
            one_or_many: false,
        };
        let adapted = adapters.adapt(adapter, field);
        if adapters.one_or_many {
            self.rev.add_known_defs(vec![serde_with::one_or_many_def()]);
        }
        adapted
    }

    /// A field's `with = "..."` module of serde_with (`serde_with::rust::double_option`, `As::<A>`).
    pub(super) fn with_module_ty(
        &mut self,
        scope: &TypeScope<'_>,
        module: &serde_with::WithModule,
        out: &Field,
        reached: &mut Vec<usize>,
    ) -> Result<Ty, String> {
        match module {
            serde_with::WithModule::As(adapter) => self.adapt(scope, adapter, &out.ty, reached),
            serde_with::WithModule::Rust(name) => serde_with::rust_module(name, &out.ty),
        }
    }

    /// A field after its `with` module: a catalogued module (`chrono::serde::ts_seconds`) replaces the
    /// field's type by the shape it writes and reads, and the field is no longer custom; any other module
    /// stays custom, opaque. serde's missing-field rule holds only for derived reads: an `Option` read by a
    /// `with` module is required unless the field has a default, which a choice of one reading says.
    pub(super) fn with_shape(&mut self, scope: &TypeScope<'_>, field: &mut Field) {
        let Some(module) = field.custom.as_ref().and_then(with_module) else {
            return;
        };
        let segments: Vec<String> = module
            .trim_start_matches("::")
            .split("::")
            .map(str::to_owned)
            .collect();
        let full = match self.rev.resolve(scope.module, &segments).target {
            NameTarget::External(full) | NameTarget::Module(full) => full,
            NameTarget::Type(_) => return,
        };
        let Some(known) = known::lookup_with(&full, &field.ty, None) else {
            return;
        };
        self.rev.add_known_defs(known.defs);
        field.custom = None;
        field.ty = match known.ty {
            ty @ Ty::Option { .. } if !field.default => Ty::Choice {
                writes: Box::new(ty.clone()),
                reads: vec![ty],
            },
            ty => ty,
        };
    }
}

/// A field's name when written, and the names it is read by: its `rename`, else the container's
/// `rename_all` rule applied to its Rust name; and its aliases.
fn wire_names(
    field_serde: &MemberSerde,
    rule: &serde_attrs::SerDe<RenameRule>,
    rust_name: &str,
) -> (String, Vec<String>) {
    let ser_name = field_serde
        .rename
        .ser
        .clone()
        .unwrap_or_else(|| rule.ser.unwrap_or_default().apply_to_field(rust_name));
    let de_names = field_serde.read_names(
        field_serde
            .rename
            .de
            .clone()
            .unwrap_or_else(|| rule.de.unwrap_or_default().apply_to_field(rust_name)),
    );
    (ser_name, de_names)
}

/// When serde leaves a field out of what it writes.
fn skip_ser(field_serde: &MemberSerde) -> SkipSer {
    if field_serde.skip_ser {
        SkipSer::Always
    } else if let Some(predicate) = &field_serde.skip_ser_if {
        SkipSer::If(predicate.clone())
    } else {
        SkipSer::Never
    }
}

/// The serde_with module a field's `with = "..."` names (both of its functions from one module).
fn with_module_of(member: &MemberSerde) -> Option<serde_with::WithModule> {
    let ser = member.ser_with.as_deref()?.strip_suffix("::serialize")?;
    let de = member.de_with.as_deref()?.strip_suffix("::deserialize")?;
    (ser == de).then(|| serde_with::with_module(ser)).flatten()
}

/// A member's custom functions (`with`, `serialize_with`, `deserialize_with`), as written.
pub(super) fn custom(member: &MemberSerde) -> Option<Custom> {
    (member.ser_with.is_some() || member.de_with.is_some()).then(|| Custom {
        ser: member.ser_with.clone(),
        de: member.de_with.clone(),
    })
}

/// The module of `with = "module"`: both sides set, as `module::serialize` and `module::deserialize`.
fn with_module(custom: &Custom) -> Option<String> {
    let ser = custom.ser.as_deref()?.strip_suffix("::serialize")?;
    let de = custom.de.as_deref()?.strip_suffix("::deserialize")?;
    (ser == de).then(|| ser.to_owned())
}
