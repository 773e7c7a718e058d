//! Realistic message types to mutate: shaped after the Flux protocols in `examples/flux-protocols`
//! (scheduler, exec, job eventlog) and covering every serde feature the engine models.

use super::ir::{Adapter, Body, Def, Ext, Field, Int, Repr, Schema, Shape, Ty, Variant, With};

fn s(defs: Vec<Def>) -> Schema {
    Schema { defs }
}

fn f(name: &str, ty: Ty) -> Field {
    Field::new(name, ty)
}

fn named(n: &str) -> Ty {
    Ty::Named(n.into())
}

const U8: Ty = Ty::Int(Int::U8);
const U16: Ty = Ty::Int(Int::U16);
const U32: Ty = Ty::Int(Int::U32);
const U64: Ty = Ty::Int(Int::U64);
const I32: Ty = Ty::Int(Int::I32);

/// Every base schema, with a name.
pub fn corpus() -> Vec<(&'static str, Schema)> {
    vec![
        (
            "alloc_request",
            s(vec![Def::st(
                "AllocRequest",
                vec![
                    f("id", U64),
                    f("priority", U32),
                    f("userid", U32),
                    f("t_submit", Ty::F64),
                    f("jobspec", Ty::Value),
                ],
            )]),
        ),
        (
            "hello_response",
            s(vec![Def::st(
                "HelloResponse",
                vec![
                    f("id", U64),
                    f("priority", U32),
                    f("userid", U32),
                    f("t_submit", Ty::F64),
                    f("free", Ty::Str.opt()).optional(),
                ],
            )]),
        ),
        (
            "ready_request",
            s(vec![
                Def::st(
                    "ReadyRequest",
                    vec![
                        f("mode", named("ReadyMode")),
                        f("limit", U32.opt()).optional(),
                    ],
                ),
                Def::en(
                    "ReadyMode",
                    Repr::External,
                    vec![Variant::unit("Unlimited"), Variant::unit("Limited")],
                )
                .case("lowercase"),
            ]),
        ),
        (
            "eventlog_entry",
            s(vec![
                Def::st(
                    "Entry",
                    vec![f("timestamp", Ty::F64), f("event", named("Event")).flat()],
                ),
                Def::en(
                    "Event",
                    Repr::Adjacent("name".into(), "context".into()),
                    vec![
                        Variant::named(
                            "Submit",
                            vec![f("userid", U32), f("urgency", U16), f("flags", U32)],
                        ),
                        Variant::named("Depend", vec![f("description", Ty::Str)]),
                        Variant::named("Priority", vec![f("priority", U32)]),
                        Variant::unit("Alloc"),
                        Variant::named("Finish", vec![f("status", I32)]),
                        Variant::unit("Clean"),
                    ],
                )
                .case("snake_case"),
            ]),
        ),
        (
            "alloc_response",
            s(vec![
                Def::st(
                    "AllocResponse",
                    vec![
                        f("id", U64),
                        f("kind", U8).wire("type"),
                        f("note", Ty::Str).dflt(),
                        f("r", Ty::Value.opt()).wire("R").optional(),
                        f("annotations", named("Annotations").opt()),
                    ],
                ),
                Def::st(
                    "Annotations",
                    vec![f("sched", Ty::Map(Box::new(Ty::Str), Box::new(Ty::Value)))],
                ),
            ]),
        ),
        (
            "exec_start",
            s(vec![
                Def::st(
                    "ExecStart",
                    vec![
                        f("id", U64),
                        f("ranks", U32.vec()),
                        f("env", Ty::Map(Box::new(Ty::Str), Box::new(Ty::Str))),
                        f("cwd", Ty::Str),
                        f("shell", Ty::Str.opt()),
                        f("opts", named("Opts")),
                    ],
                ),
                Def::st("Opts", vec![f("timeout", Ty::F64.opt()), f("retries", U8)]),
            ]),
        ),
        (
            "resource_status",
            s(vec![
                Def::st(
                    "ResourceStatus",
                    vec![
                        f("all", Ty::Str),
                        f("down", Ty::Str),
                        f("torpid", U32.vec()).dflt(),
                        f(
                            "drain",
                            Ty::Map(Box::new(Ty::Str), Box::new(named("DrainInfo"))),
                        ),
                    ],
                ),
                Def::st(
                    "DrainInfo",
                    vec![f("timestamp", Ty::F64), f("reason", Ty::Str)],
                ),
            ]),
        ),
        (
            "state_event",
            s(vec![
                Def::st(
                    "StateEvent",
                    vec![f("id", U64), f("state", named("JobState"))],
                ),
                Def::en(
                    "JobState",
                    Repr::External,
                    vec![
                        Variant::unit("Depend"),
                        Variant::unit("Priority"),
                        Variant::unit("Sched"),
                        Variant::unit("Run"),
                        Variant::unit("Cleanup"),
                        Variant::unit("Inactive"),
                    ],
                )
                .case("SCREAMING_SNAKE_CASE"),
            ]),
        ),
        (
            "lookup",
            s(vec![
                Def::st(
                    "Lookup",
                    vec![f("id", named("JobRef")), f("keys", Ty::Str.vec())],
                ),
                Def::en(
                    "JobRef",
                    Repr::Untagged,
                    vec![
                        Variant::newtype("Num", U64),
                        Variant::newtype("Text", Ty::Str),
                    ],
                ),
            ]),
        ),
        (
            "kill",
            s(vec![
                Def::st("Kill", vec![f("id", named("JobId")), f("signum", I32)]),
                Def::tuple("JobId", vec![U64]),
            ]),
        ),
        (
            "span",
            s(vec![Def::st(
                "Span",
                vec![
                    f("range", Ty::Tup(vec![U32, U32])),
                    f("grid", Ty::Arr(Box::new(U16), 3)),
                    f("owner", Ty::Tup(vec![Ty::Str, U32]).opt()),
                ],
            )]),
        ),
        (
            "stats",
            s(vec![Def::st(
                "Stats",
                vec![
                    f("counts", Ty::Map(Box::new(U32), Box::new(U64))),
                    f("tags", Ty::Set(Box::new(Ty::Str))),
                    f("ratio", Ty::F32),
                    f("enabled", Ty::Bool),
                    f("initial", Ty::Char),
                ],
            )]),
        ),
        (
            "shell_init",
            s(vec![{
                let mut d = Def::st(
                    "ShellInit",
                    vec![
                        f("rank", U32),
                        f("size", U32),
                        f("verbose", Ty::Bool).dflt(),
                    ],
                );
                d.deny_unknown = true;
                d
            }]),
        ),
        (
            "config",
            s(vec![
                {
                    let mut d = Def::st(
                        "Config",
                        vec![
                            f("depth", U32),
                            f("names", Ty::Str.vec()),
                            f("mode", named("Mode")),
                        ],
                    );
                    d.default = true;
                    d
                },
                Def::en(
                    "Mode",
                    Repr::External,
                    vec![Variant::unit("Fast"), Variant::unit("Safe")],
                ),
            ]),
        ),
        (
            "envelope",
            s(vec![
                Def::st(
                    "Envelope",
                    vec![f("payload", named("Payload")), f("seq", U64)],
                ),
                {
                    let mut d = Def::st("Payload", vec![f("inner", U64.vec())]);
                    d.transparent = true;
                    d
                },
            ]),
        ),
        (
            "command",
            s(vec![Def::en(
                "Command",
                Repr::External,
                vec![
                    Variant::named("Start", vec![f("id", U64)]),
                    Variant::newtype("Stop", U64),
                    Variant::unit("Pause"),
                    Variant::new("Resize", Shape::Tuple(vec![f("0", U32), f("1", U32)])),
                ],
            )]),
        ),
        (
            "heartbeat",
            s(vec![{
                let mut d = Def::st("Heartbeat", vec![f("rank", U32), f("seq", U64)]);
                d.tag = Some("kind".into());
                d
            }]),
        ),
        (
            "topology",
            s(vec![
                Def::st("Topology", vec![f("root", named("Node"))]),
                Def::st(
                    "Node",
                    vec![f("rank", U32), f("children", named("Node").vec())],
                ),
            ]),
        ),
        (
            "timeout",
            s(vec![Def::st(
                "Timeout",
                vec![
                    f("id", U64),
                    f("after", Ty::Ext(Ext::Duration)),
                    f("addr", Ty::Ext(Ext::Ipv4).opt()),
                ],
            )]),
        ),
        (
            "job_event",
            s(vec![
                Def::en(
                    "JobEvent",
                    Repr::Internal("type".into()),
                    vec![
                        Variant::named("Start", vec![f("id", U64), f("t", Ty::F64)]),
                        Variant::named("Exit", vec![f("id", U64), f("code", I32)]),
                        Variant::newtype("Output", named("Chunk")),
                        {
                            let mut v = Variant::unit("Unknown");
                            v.other = true;
                            v
                        },
                    ],
                ),
                Def::st("Chunk", vec![f("stream", Ty::Str), f("data", Ty::Str)]),
            ]),
        ),
        (
            "quota",
            s(vec![
                Def::st("Quota", vec![f("user", U32), f("limit", named("Limit"))]),
                Def::en(
                    "Limit",
                    Repr::External,
                    vec![
                        Variant::unit("Unlimited"),
                        Variant::newtype("Count", U32),
                        {
                            let mut v = Variant::newtype("Raw", Ty::Str);
                            v.untagged = true;
                            v
                        },
                    ],
                ),
            ]),
        ),
        (
            "task",
            s(vec![
                Def::st("Task", vec![f("id", named("TaskId")), f("name", Ty::Str)]),
                Def::new("TaskId", Body::MacroNewtype(U64)),
            ]),
        ),
        (
            "hosts",
            s(vec![Def::st(
                "Hosts",
                vec![
                    f("hosts", Ty::Str.vec()),
                    f("ports", Ty::Map(Box::new(Ty::Str), Box::new(U16))),
                    f("weights", Ty::F64.vec()),
                ],
            )]),
        ),
        (
            "resize",
            s(vec![Def::en(
                "Resize",
                Repr::Adjacent("t".into(), "c".into()),
                vec![
                    Variant::named("Grow", vec![f("nodes", U32)]),
                    Variant::named("Shrink", vec![f("nodes", U32)]),
                    Variant::unit("Reset"),
                ],
            )]),
        ),
        (
            "resource_request",
            s(vec![
                Def::st(
                    "ResourceRequest",
                    vec![
                        f("count", named("Amount")),
                        f("unit", Ty::Str),
                        f("exclusive", Ty::Bool.opt()),
                    ],
                ),
                Def::en(
                    "Amount",
                    Repr::Untagged,
                    vec![
                        Variant::newtype("Exact", U64),
                        Variant::newtype("Fraction", Ty::F64),
                        Variant::named("Range", vec![f("min", U32), f("max", U32)]),
                        Variant::newtype("Expr", Ty::Str),
                    ],
                ),
            ]),
        ),
        (
            "exec_output",
            s(vec![
                Def::st(
                    "ExecOutput",
                    vec![
                        f("rank", U32),
                        f("stream", named("Stream")),
                        f("data", Ty::Str.opt()).optional(),
                        f("eof", Ty::Bool).optional_bool(),
                    ],
                )
                .case("camelCase"),
                Def::en(
                    "Stream",
                    Repr::External,
                    vec![Variant::unit("Stdout"), Variant::unit("Stderr")],
                )
                .case("lowercase"),
            ]),
        ),
        (
            "job_record",
            s(vec![
                Def::st(
                    "JobRecord",
                    vec![
                        f("id", ext(Ext::Uuid)),
                        f("submitted", ext(Ext::DateTime)),
                        f("started", Ty::With(With::ChronoSeconds)),
                        f("finished", Ty::With(With::TimeMillis)),
                        f("source", ext(Ext::Url)),
                        f("version", ext(Ext::Semver)),
                        f("cwd", ext(Ext::Utf8Path)),
                        f("labels", Ty::IndexMap(Box::new(Ty::Str), Box::new(U32))),
                        f("cost", ext(Ext::Decimal)),
                        f("score", ext(Ext::OrderedF64)),
                        f("level", named("Level")),
                    ],
                ),
                Def::en(
                    "Level",
                    Repr::Integer(Int::U8),
                    vec![
                        Variant::unit("Debug"),
                        Variant::unit("Info"),
                        Variant::unit("Warn"),
                        Variant::unit("Error"),
                    ],
                ),
            ]),
        ),
        (
            "sample_batch",
            s(vec![{
                let mut d = Def::st(
                    "SampleBatch",
                    vec![
                        f("count", adapt(U32, Adapter::Display)),
                        f("limit", adapt(U64, Adapter::Display).opt()),
                        f("hosts", adapt(Ty::Str.vec(), Adapter::OneOrMany)),
                        f("active", adapt(Ty::Bool, Adapter::BoolFromInt)),
                        f("blob", adapt(U8.vec(), Adapter::Base64)),
                        f("digest", adapt(U8.vec(), Adapter::Hex)),
                        f("retries", adapt(U32, Adapter::DefaultOnNull)),
                        f(
                            "expires",
                            adapt(ext(Ext::SystemTime), Adapter::TimestampSeconds),
                        ),
                        f("note", Ty::Str.opt()),
                        f("ratio", Ty::F64),
                    ],
                );
                d.skip_none = true;
                d
            }]),
        ),
        (
            "std_bag",
            s(vec![Def::st(
                "StdBag",
                vec![
                    f("timeout", ext(Ext::Duration)),
                    f("started", ext(Ext::SystemTime)),
                    f("path", ext(Ext::PathBuf)),
                    f("counter", ext(Ext::Wrapping)),
                    f("shared", Ty::Arc(Box::new(Ty::Str))),
                    f("name", ext(Ext::Cow)),
                    f("span", ext(Ext::Range)),
                    f("marker", ext(Ext::Phantom)),
                    f("initial", Ty::Char),
                    f("digest", Ty::Arr(Box::new(U8), 4)),
                    f("small", ext(Ext::NonZeroU8)),
                    f("pair", Ty::Tup(vec![U32, U32])),
                    f("unit", Ty::Unit),
                ],
            )]),
        ),
        (
            "log_line",
            s(vec![
                Def::st(
                    "LogLine",
                    vec![
                        f("ts", Ty::Int(Int::I64)),
                        f("severity", named("Severity")),
                        f("sampled", Ty::Bool),
                        f("payload", U8.vec()),
                        f("ids", U32.vec()),
                        f("ratio", Ty::F64),
                        f("attempts", U8),
                        f("message", Ty::Str),
                        f("fields", Ty::Map(Box::new(Ty::Str), Box::new(Ty::Str))),
                        f("timeout", Ty::Ext(Ext::SystemTime).opt()),
                    ],
                ),
                Def::en(
                    "Severity",
                    Repr::External,
                    vec![
                        Variant::unit("Trace"),
                        Variant::unit("Debug"),
                        Variant::unit("Info"),
                    ],
                ),
            ]),
        ),
    ]
}

fn ext(e: Ext) -> Ty {
    Ty::Ext(e)
}

fn adapt(t: Ty, a: Adapter) -> Ty {
    Ty::As(Box::new(t), a)
}

impl Field {
    /// `default` without a predicate (a bool that old writers may leave out).
    fn optional_bool(mut self) -> Field {
        self.default = true;
        self
    }
}
