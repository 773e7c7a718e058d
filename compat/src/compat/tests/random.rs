//! Randomized models: every change of a random schema is judged soundly.

use super::build::*;
use super::harness::*;
use crate::Format;
use crate::findings::Level;
use crate::model::{Body, EnumRepr, Field, SkipSer, Style, Ty, TypeDef, Variant};

/// A small deterministic generator (an LCG), so failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn pick(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap_or(0) % n.max(1)
    }
    fn coin(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn ty(&mut self, depth: usize, names: &[&str]) -> Ty {
        let leaf = depth == 0 || self.coin(40);
        match if leaf { self.pick(7) } else { 7 + self.pick(6) } {
            0 => Ty::Bool,
            1 => Ty::String,
            2 => u([8, 16, 32, 64][self.pick(4)]),
            3 => i([8, 32, 64][self.pick(3)]),
            4 => float([32, 64][self.pick(2)]),
            5 => Ty::Char,
            6 => Ty::Value,
            7 => opt(self.ty(depth - 1, names)),
            8 => vec_of(self.ty(depth - 1, names)),
            9 => map_of(
                [Ty::String, u(32)][self.pick(2)].clone(),
                self.ty(depth - 1, names),
            ),
            10 => Ty::Tuple {
                elems: vec![self.ty(depth - 1, names), self.ty(depth - 1, names)],
            },
            _ => named(names[self.pick(names.len())]),
        }
    }
    fn field(&mut self, name: &str, names: &[&str]) -> Field {
        let mut x = f(name, self.ty(2, names));
        if self.coin(20) {
            x.default = true;
        }
        if self.coin(10) {
            x = x.wire(&format!("{name}_w"));
        }
        if self.coin(10) && matches!(x.ty, Ty::Option { .. }) {
            x.skip_ser = SkipSer::If("Option::is_none".into());
            x.default = true;
        }
        if self.coin(8) {
            x = x.alias(&format!("{name}_alias"));
        }
        if self.coin(5) {
            x = x.skip();
            x.default = true;
        }
        if self.coin(8) {
            x.ty = named(names[self.pick(names.len())]);
            x.flatten = true;
        }
        x
    }
    fn def(&mut self, name: &str, names: &[&str]) -> TypeDef {
        let mut a = attrs(name);
        if self.coin(50) {
            let n = 1 + self.pick(3);
            let fields = (0..n)
                .map(|k| self.field(&format!("{}_f{k}", name.to_lowercase()), names))
                .collect();
            a.deny_unknown_fields = self.coin(15);
            a.default = self.coin(10);
            st_with(name, a, fields)
        } else {
            a.repr = match self.pick(4) {
                0 => EnumRepr::External,
                1 => EnumRepr::Internal { tag: "t".into() },
                2 => EnumRepr::Adjacent {
                    tag: "t".into(),
                    content: "c".into(),
                },
                _ => EnumRepr::Untagged,
            };
            let n = 1 + self.pick(3);
            let mut variants: Vec<Variant> = (0..n)
                .map(|k| {
                    let vname = format!("V{k}");
                    match self.pick(3) {
                        0 => unit(&vname),
                        1 => var(
                            &vname,
                            Style::Named,
                            vec![self.field(&format!("{}_x{k}", name.to_lowercase()), names)],
                        ),
                        _ => newtype(&vname, self.ty(1, names)),
                    }
                })
                .collect();
            if matches!(
                a.repr,
                EnumRepr::Internal { .. } | EnumRepr::Adjacent { .. }
            ) && self.coin(30)
            {
                variants.push(other("Other"));
            } else if a.repr != EnumRepr::Untagged && self.coin(20) {
                let mut loose = var(
                    "Loose",
                    Style::Named,
                    vec![self.field(&format!("{}_y", name.to_lowercase()), names)],
                );
                loose.untagged = true;
                variants.push(loose);
            }
            def(name, a, Body::Enum { variants })
        }
    }
    fn mutate(&mut self, t: &TypeDef, names: &[&str]) -> TypeDef {
        let mut t = t.clone();
        match &mut t.body {
            Body::Struct { fields, .. } => match self.pick(4) {
                0 => {
                    let added = format!("{}_added", t.attrs.ser_name.to_lowercase());
                    fields.push(self.field(&added, names));
                }
                1 if fields.len() > 1 => {
                    fields.remove(0);
                }
                2 => {
                    if let Some(x) = fields.first_mut() {
                        x.ty = self.ty(2, names);
                        x.skip_ser = SkipSer::Never;
                        x.skip_de = false;
                    }
                }
                _ => t.attrs.deny_unknown_fields = !t.attrs.deny_unknown_fields,
            },
            Body::Enum { variants } => match self.pick(3) {
                0 => variants.insert(0, unit("Added")),
                1 => variants.reverse(),
                _ => {
                    if let Some(v) = variants.first_mut() {
                        *v = newtype(&v.rust_name.clone(), self.ty(1, names));
                    }
                }
            },
            Body::Alias { .. } => {}
        }
        t
    }
}

/// Keeps `flatten` only where serde supports it: on a field whose type is a braced struct without
/// flattened fields of its own (so no cycles), and never with `deny_unknown_fields`.
fn serde_valid(mut types: Vec<TypeDef>) -> Vec<TypeDef> {
    let flattenable: Vec<String> = types
        .iter()
        .filter(|t| {
            matches!(&t.body, Body::Struct { style: Style::Named, fields } if fields.iter().all(|x| !x.flatten))
        })
        .map(|t| t.path.clone())
        .collect();
    for t in &mut types {
        let path = t.path.clone();
        let mut has_flatten = false;
        let mut fix = |fields: &mut Vec<Field>| {
            for x in fields.iter_mut() {
                if x.flatten {
                    let ok = matches!(&x.ty, Ty::Named { path: p, .. } if flattenable.contains(p) && *p != path);
                    x.flatten = ok;
                    has_flatten |= ok;
                }
            }
        };
        match &mut t.body {
            Body::Struct { fields, .. } => fix(fields),
            Body::Enum { variants } => variants.iter_mut().for_each(|v| fix(&mut v.fields)),
            Body::Alias { .. } => {}
        }
        if has_flatten {
            t.attrs.deny_unknown_fields = false;
        }
    }
    types
}

#[test]
fn random_models_are_sound() {
    let names = ["Msg", "A", "B"];
    let mut g = Gen(std::env::var("WC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7));
    let mut majors = 0;
    for round in 0..std::env::var("WC_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
    {
        let types: Vec<TypeDef> = names
            .iter()
            .map(|n| {
                let mut d = g.def(n, &names);
                if *n == "Msg" && round % 2 == 0 {
                    d.body = Body::Struct {
                        style: Style::Named,
                        fields: vec![g.field("root", &names)],
                    };
                    d.attrs = attrs("Msg");
                }
                d
            })
            .collect();
        let types = serde_valid(types);
        let changed: Vec<TypeDef> = types
            .iter()
            .map(|t| {
                if g.coin(50) {
                    g.mutate(t, &names)
                } else {
                    t.clone()
                }
            })
            .collect();
        let changed = serde_valid(changed);
        let format = [Format::Json, Format::Json, Format::Json, Format::Bincode][g.pick(4)];
        let old = snap_fmt(format, types);
        let new = snap_fmt(format, changed);
        let r = std::panic::catch_unwind(|| check(&old, &new));
        let Ok(out) = r else {
            eprintln!(
                "ROUND {round}\nOLD {}\nNEW {}",
                serde_json::to_string(&old.types).unwrap_or_default(),
                serde_json::to_string(&new.types).unwrap_or_default()
            );
            panic!("round {round}");
        };
        majors += out.iter().filter(|f| f.level == Level::Major).count();
    }
    assert!(majors > 100, "the generator finds breaks ({majors})");
}
