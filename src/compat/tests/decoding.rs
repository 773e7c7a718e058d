//! The decoder ([`Decoder`]) against serde_json itself: real types, compiled here and extracted from
//! the same text, and payloads each reads or rejects; the decoder must say what serde_json says.

use serde_json::{Value, json};

use crate::compat::decode::Decoder;
use crate::compat::shape::SideRef;
use crate::findings::Side;
use crate::model::{ModelView, Ty};

/// `case!(name { items })`: compiles `items` as the module `name`, with `TEXT`, their source.
macro_rules! case {
    ($name:ident { $($items:tt)* }) => {
        #[allow(dead_code)]
        mod $name {
            use serde::Deserialize;
            $($items)*
            pub const TEXT: &str = stringify!($($items)*);
        }
    };
}

/// Whether the decoder reads `payload` as the type `ty` of the case `text`.
fn decoder_reads(text: &str, ty: &str, payload: &Value) -> bool {
    let source = format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"0.1.0\")]\npub struct P;\n\
         #[derive(Serialize, Deserialize, Message)]\n\
         #[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct Root {{ pub v: {ty} }}\n{text}\n"
    );
    let snapshot = crate::extract::snapshot_from_sources("case", &[("src/lib.rs", &source)])
        .unwrap_or_else(|e| panic!("{e}\n{source}"));
    let side = SideRef {
        model: ModelView::Whole(&snapshot),
        side: Side::Old,
        format: crate::Format::Json,
    };
    let root = Ty::Named {
        path: format!("case::{ty}"),
        args: Vec::new(),
    };
    Decoder::new(side).decode(&root, payload).is_ok()
}

/// Each payload is read by the decoder exactly when serde_json reads it as `T`.
fn agree<T: serde::de::DeserializeOwned>(text: &str, ty: &str, payloads: &[Value]) {
    for payload in payloads {
        let serde = serde_json::from_value::<T>(payload.clone()).is_ok();
        assert_eq!(
            decoder_reads(text, ty, payload),
            serde,
            "{ty} from {payload}: serde_json {}",
            if serde { "reads it" } else { "rejects it" }
        );
    }
}

case!(untagged_struct {
    #[derive(Deserialize, Debug)]
    pub struct Inner {
        pub x: u32,
    }

    #[derive(Deserialize, Debug)]
    #[serde(untagged)]
    pub enum E {
        Named { x: u32 },
        Newtype(Inner),
    }

    #[derive(Deserialize, Debug)]
    #[serde(untagged)]
    pub enum OnlyNamed {
        Named { x: u32, y: bool },
    }
});

#[test]
fn an_untagged_struct_variant_reads_a_map_only() {
    use untagged_struct as c;
    // The newtype variant's struct reads an array; the struct variant does not.
    agree::<c::E>(c::TEXT, "E", &[json!({"x": 1}), json!([1]), json!(["a"])]);
    agree::<c::OnlyNamed>(
        c::TEXT,
        "OnlyNamed",
        &[json!({"x": 1, "y": true}), json!([1, true]), json!([1])],
    );
}

case!(flattened {
    #[derive(Deserialize, Debug)]
    pub struct Extra {
        pub y: bool,
    }

    #[derive(Deserialize, Debug)]
    pub struct WithFlatten {
        pub x: u32,
        #[serde(flatten)]
        pub extra: Extra,
    }

    #[derive(Deserialize, Debug)]
    pub struct Plain {
        pub x: u32,
        pub y: bool,
    }
});

#[test]
fn a_struct_with_a_flattened_field_reads_a_map_only() {
    use flattened as c;
    let payloads = [json!({"x": 1, "y": true}), json!([1, true]), json!([1])];
    agree::<c::WithFlatten>(c::TEXT, "WithFlatten", &payloads);
    agree::<c::Plain>(c::TEXT, "Plain", &payloads);
}

case!(internal_unit {
    #[derive(Deserialize, Debug)]
    pub struct Marker;

    #[derive(Deserialize, Debug)]
    #[serde(tag = "t")]
    pub enum E {
        Empty(()),
        Mark(Marker),
        Unit,
        Count { n: u32 },
    }
});

#[test]
fn an_internally_tagged_newtype_of_unit_is_its_tag_alone() {
    use internal_unit as c;
    agree::<c::E>(
        c::TEXT,
        "E",
        &[
            json!({"t": "Empty"}),
            json!({"t": "Mark"}),
            json!({"t": "Unit"}),
            json!({"t": "Count", "n": 1}),
            json!({"t": "Empty", "x": 1}),
            json!({"t": "Count"}),
        ],
    );
}

case!(integer_keys {
    #[derive(Deserialize, Debug)]
    pub struct Keys {
        pub small: std::collections::BTreeMap<u8, bool>,
        pub signed: std::collections::BTreeMap<i16, bool>,
    }
});

#[test]
fn integer_keys_are_json_integers() {
    use integer_keys as c;
    let mut payloads = Vec::new();
    for key in [
        "5", "+5", "007", "0", "-0", "-3", "256", " 5", "5 ", "5.0", "1e2", "",
    ] {
        payloads.push(json!({"small": {key: true}, "signed": {}}));
        payloads.push(json!({"small": {}, "signed": {key: true}}));
    }
    agree::<c::Keys>(c::TEXT, "Keys", &payloads);
}
