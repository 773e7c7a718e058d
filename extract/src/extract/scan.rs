//! A cheap look at a file's structure without syn: its item-level `mod` declarations (with `#[path]`),
//! whether an item may declare a protocol or a message, and its items (kind, name, byte range: [`items`])
//! so that syn parses only the ones a check needs, each alone. Found by a small lexer (`lexer`) that knows
//! comments (doc comments are attributes of the item after them), string, char and raw literals,
//! lifetimes and delimiters.
//!
//! "May declare" is decided on tokens, never on the text: an item (at module level, or in an inline
//! module) whose outer attributes include one whose path is `wire` and a `derive` naming `Protocol` or
//! `Message` (either possibly behind `cfg_attr`), which is exactly what `declarations` looks for, or a
//! `macro_rules!` whose body has identifiers naming both (it may write such items). `wire` in a comment, a
//! doc comment, a string or an unrelated identifier does not count, so a large generated file that merely
//! mentions the word is never handed to syn unless name resolution needs it.
//!
//! The extractor needs every file of a crate's module tree to find the tree itself, but only a few of them
//! as syntax trees (those that may declare `#[wire]` items and those whose modules name resolution
//! visits). The scan reads the `mod` structure at a fraction of the cost of `syn::parse_file`. It gives up
//! ([`scan`] returns `None`) whenever it cannot be sure, for example on unbalanced delimiters or an
//! unterminated literal; the caller then parses the file with syn, which also reports the syntax error.
//! `tests::scan_agrees_with_syn` pins that both read the same declarations. [`mods_of_syntax`] reads them
//! from syn's tree for the files the scan gives up on. [`items`] also gives up where a brace group may
//! not end its item (`struct T<const N: usize = { 3 }>;`): that file is parsed whole;
//! `tests::items_agree_with_syn_on_this_repository` pins that every item it reports parses alone into
//! the item syn reads in the whole file.

/// Where a token is, as proc-macro2 reports it for a span: 1-based line, 1-based column in characters,
/// and byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
    pub start: usize,
    pub end: usize,
}

/// An item-level `mod` declaration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModItem {
    /// The inline modules (`mod a { ... }`) it is written in, outermost first (raw prefixes stripped).
    pub parents: Vec<String>,
    /// Its name (`r#` stripped).
    pub name: String,
    /// `mod name { ... }` rather than `mod name;`.
    pub inline: bool,
    /// The value of its first `#[path = "..."]` attribute.
    pub path_attr: Option<String>,
    /// Its `cfg` and `cfg_attr` attributes, each as the text inside its brackets ([`cfg_text`]): whether
    /// the module exists depends on the build (`cfg` decides).
    pub cfg: Vec<String>,
    /// Its name's position.
    pub pos: Pos,
}

/// A module-level item (or an item of an inline module) as [`items`] reads it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScanItem {
    /// The inline modules it is written in, outermost first (raw prefixes stripped).
    pub parents: Vec<String>,
    pub kind: ItemKind,
    /// Its bytes in the scanned text: from its first doc comment, attribute or word to its closing `;`
    /// or `}` (for an inline module, to its opening `{`: its items are items of their own).
    pub start: usize,
    pub end: usize,
    /// The 1-based line of `start`, and the byte offset where that line starts.
    pub line: u32,
    pub line_start: usize,
    /// It may declare a protocol or a message (see the module documentation).
    pub declares: bool,
    /// It has an outer `#[cfg(...)]` (possibly behind `cfg_attr`): whether it exists depends on the
    /// build, which only its parsed attributes tell.
    pub cfg: bool,
}

/// What a [`ScanItem`] is, as far as name resolution needs to know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ItemKind {
    /// `struct`, `enum` or `type`, by name (`r#` stripped).
    Type(String),
    /// `use ...;`.
    Use,
    /// `mod name;` or `mod name { ... }`.
    Mod(String),
    /// A macro invocation (`name! { ... }`, `a::b!(...);`): its last path segment and the path's position.
    MacroCall(String, Pos),
    /// `macro_rules! name { ... }`, by name (`r#` stripped).
    MacroRules(String),
    /// `impl ... { ... }`: the last name of the type it is for and of the trait it implements (`impl<'de>
    /// serde::Deserialize<'de> for Id<'_>`: `Id`, `Deserialize`), `None` where the first tokens do not
    /// tell (a tuple or slice type, a header longer than the scan reads).
    Impl {
        self_name: Option<String>,
        trait_name: Option<String>,
    },
    /// `fn name`, by name (`r#` stripped).
    Fn(String),
    /// `const name` or `static name`, by name (`r#` stripped).
    Value(String),
    /// Anything else (traits, unions, `extern crate`, `const _`).
    Other,
}

/// What [`scan`] reads of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// The item-level `mod` declarations in source order, inline ones included.
    pub mods: Vec<ModItem>,
    /// An item may declare a protocol or a message (see the module documentation).
    pub declares: bool,
}

/// The text syn parses: without a byte order mark, and without a shebang line (the newline stays), as
/// `syn::parse_file` does, so that positions agree.
pub fn syn_content(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(rest) = text.strip_prefix("#!")
        && !rest.trim_start().starts_with('[')
    {
        return text.find('\n').map_or("", |i| &text[i..]);
    }
    text
}

/// What the structural pass is inside.
#[derive(Clone, Copy)]
enum Group {
    /// A module body: the file itself, or an inline module.
    Module,
    /// The brackets of an attribute written at module level; `true` for an inner one (`#![...]`).
    Attr(bool),
    /// A group inside such an attribute (its tokens are the attribute's), by its closing delimiter.
    InAttr(u8),
    /// Any other group (bodies, parameters, macro input), by its closing delimiter.
    Other(u8),
}

/// `#` or `#!` just read at module level.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AttrStart {
    None,
    Outer,
    Inner,
}

/// The item-level `mod` declarations of a file in source order, inline ones included (the content of
/// `mod a { ... }` is scanned too), and whether an item may declare a protocol or a message; `None` when
/// the scan cannot read the file with certainty. `text` is the text as syn sees it ([`syn_content`]).
pub fn scan(text: &str) -> Option<Scan> {
    let mut lexer = Lexer::new(text);
    let mut pass = StructuralPass::new(text, None);
    pass.run(&mut lexer)?;
    Some(Scan {
        mods: pass.out,
        declares: pass.declares,
    })
}

/// [`scan`] and [`items`] of `text` in one pass: for a file whose items will be asked for (one that may
/// declare), reading it once instead of twice. `None` when [`scan`] gives `None`; the items are `None`
/// where [`items`] gives `None`.
pub fn scan_with_items(text: &str) -> Option<(Scan, Option<Vec<ScanItem>>)> {
    let mut lexer = Lexer::new(text);
    let mut pass = StructuralPass::new(text, Some(Recorder::default()));
    pass.run(&mut lexer)?;
    let items = pass.record.take().and_then(|mut record| {
        if record.pending.is_some() {
            record.finish(text);
        }
        (record.draft.is_none() && !record.uncertain).then_some(record.items)
    });
    let scan = Scan {
        mods: pass.out,
        declares: pass.declares,
    };
    Some((scan, items))
}

/// The items of a file in source order, inline modules' items included, each with its byte range, so
/// that syn can parse the ones a check needs alone. `None` when the scan cannot read the file, or cannot
/// tell with certainty where an item ends (a brace group that does not end its item, as in
/// `struct T<const N: usize = { 3 }>;`): the file is then parsed whole. `text` as for [`scan`].
pub fn items(text: &str) -> Option<Vec<ScanItem>> {
    scan_with_items(text)?.1
}

/// The first module-level tokens of an item (outside its attributes): enough to tell its kind.
const HEAD_TOKENS: usize = 40;

/// An item being read by [`items`].
#[derive(Debug)]
struct Draft {
    parents: Vec<String>,
    start: usize,
    line: (u32, usize),
    /// Its first module-level tokens, with their byte offsets and lines.
    head: Vec<(Token, usize, (u32, usize))>,
    declares: bool,
    cfg: bool,
}

/// What [`items`] records on top of the structural pass.
#[derive(Debug, Default)]
struct Recorder {
    items: Vec<ScanItem>,
    draft: Option<Draft>,
    /// A module-level brace group closed the draft here (its end): the next token says whether the item
    /// ends there (`fn f() {}`) or goes on to a `;` (`const C: T = { .. };`).
    pending: Option<usize>,
    /// An item's end could not be told with certainty.
    uncertain: bool,
    text_len: usize,
}

impl Recorder {
    /// Ends the draft at the pending end.
    fn finish(&mut self, text: &str) {
        let end = self.pending.take().unwrap_or(self.text_len);
        self.finish_at(text, end, None);
    }

    /// Ends the draft at `end`; `kind` when it is already known (an inline module), else read from the
    /// draft's first tokens.
    fn finish_at(&mut self, text: &str, end: usize, kind: Option<ItemKind>) {
        let Some(draft) = self.draft.take() else {
            return;
        };
        let Some(kind) = kind.or_else(|| item_kind(text, &draft.head)) else {
            // A type, module or import the scan cannot name: syn reports it, on the whole file.
            self.uncertain = true;
            return;
        };
        self.items.push(ScanItem {
            kind,
            parents: draft.parents,
            start: draft.start,
            end,
            line: draft.line.0,
            line_start: draft.line.1,
            declares: draft.declares,
            cfg: draft.cfg,
        });
    }
}

/// Whether a token can begin an item (after a brace group that may have ended the one before).
fn starts_item(text: &str, token: Token) -> bool {
    match token {
        Token::Punct(b'#') | Token::Doc => true,
        Token::Ident(s, e) => !matches!(&text[s..e], "as" | "where" | "for" | "else" | "in"),
        _ => false,
    }
}

/// What the outer attributes of the item being read say (cleared at the end of every item).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ItemAttrs {
    /// An attribute whose path is `wire`.
    wire: bool,
    /// A `derive` naming `Protocol` or `Message`.
    derive: bool,
    /// A `cfg` attribute.
    cfg: bool,
}

impl ItemAttrs {
    /// Adds what another attribute says.
    fn merge(&mut self, other: ItemAttrs) {
        self.wire |= other.wire;
        self.derive |= other.derive;
        self.cfg |= other.cfg;
    }
}

/// Where the pass is in a module-level `macro_rules! name { ... }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MacroRules {
    None,
    /// `macro_rules` read.
    Keyword,
    /// `macro_rules!` read.
    Bang,
    /// `macro_rules! name` read.
    Named,
    /// In the body, which ends when the stack is back to this depth; what its identifiers named so far.
    Body {
        depth: usize,
        wire: bool,
        declares: bool,
    },
}

/// What one attribute (its tokens inside the brackets) says about the item it is on.
fn classify_attr(text: &str, tokens: &[Token]) -> ItemAttrs {
    let word = |token: &Token| match *token {
        Token::Ident(s, e) => Some(&text[s..e]),
        _ => None,
    };
    let Some(path) = tokens.first().and_then(word) else {
        return ItemAttrs::default();
    };
    let single = !matches!(tokens.get(1), Some(Token::Punct(b':')));
    match path {
        "wire" if single => ItemAttrs {
            wire: true,
            ..ItemAttrs::default()
        },
        "derive" if single => ItemAttrs {
            derive: tokens[1..]
                .iter()
                .filter_map(word)
                .any(|name| name == "Protocol" || name == "Message"),
            ..ItemAttrs::default()
        },
        "cfg" if single => ItemAttrs {
            cfg: true,
            ..ItemAttrs::default()
        },
        "cfg_attr" if single => cfg_attr(text, &tokens[1..]),
        _ => ItemAttrs::default(),
    }
}

/// `cfg_attr(predicate, attr, ...)`: what the attributes after the predicate say (`tokens` starts at the
/// opening parenthesis). The predicate's own `wire` (a cfg named so) does not count.
fn cfg_attr(text: &str, tokens: &[Token]) -> ItemAttrs {
    let [Token::Open(b'('), inner @ .., Token::Close(b')')] = tokens else {
        return ItemAttrs::default();
    };
    let mut out = ItemAttrs::default();
    let mut depth = 0usize;
    let mut start = None;
    for (i, token) in inner.iter().enumerate() {
        match token {
            Token::Open(_) => depth += 1,
            Token::Close(_) => depth = depth.saturating_sub(1),
            Token::Punct(b',') if depth == 0 => {
                if let Some(from) = start {
                    let found = classify_attr(text, &inner[from..i]);
                    out.merge(found);
                }
                start = Some(i + 1);
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        let found = classify_attr(text, &inner[from..]);
        out.merge(found);
    }
    out
}

/// Whether an identifier in a `macro_rules!` body names `wire` (the attribute, or the crate) and whether
/// it names `Protocol` or `Message`: a body with both may write declarations (`declarations` reads the
/// same identifiers).
pub fn macro_body_ident(ident: &str) -> (bool, bool) {
    (
        ident.contains("wire"),
        ident.contains("Message") || ident.contains("Protocol"),
    )
}

/// The state of [`scan`] between tokens. Its methods return `None` when the scan gives up.
struct StructuralPass<'t> {
    text: &'t str,
    out: Vec<ModItem>,
    stack: Vec<Group>,
    /// The names of the inline modules the pass is in.
    parents: Vec<String>,
    /// The first `#[path = "..."]` of the item being read (cleared at the end of every item).
    path_attr: Option<String>,
    /// The byte ranges of the `cfg` and `cfg_attr` attributes of the item being read, inside their
    /// brackets (a `mod` keeps them as [`ModItem::cfg`]).
    cfg: Vec<(usize, usize)>,
    /// Where the text of the attribute being read starts (after its `[`).
    attr_from: usize,
    attr_start: AttrStart,
    /// `mod` read at module level (`Some(None)`), then its name.
    after_mod: Option<Option<(String, Pos)>>,
    /// The tokens of the attribute being read, nested groups included.
    attr_tokens: Vec<Token>,
    /// What the outer attributes of the item being read say.
    item_attrs: ItemAttrs,
    /// Where the pass is in a module-level `macro_rules!`.
    macro_rules: MacroRules,
    /// An item may declare a protocol or a message.
    declares: bool,
    /// The items, when [`items`] asks for them.
    record: Option<Recorder>,
}

impl<'t> StructuralPass<'t> {
    fn new(text: &'t str, record: Option<Recorder>) -> Self {
        StructuralPass {
            text,
            out: Vec::new(),
            stack: vec![Group::Module],
            parents: Vec::new(),
            path_attr: None,
            cfg: Vec::new(),
            attr_from: 0,
            attr_start: AttrStart::None,
            after_mod: None,
            attr_tokens: Vec::new(),
            item_attrs: ItemAttrs::default(),
            macro_rules: MacroRules::None,
            declares: false,
            record,
        }
    }

    /// Reads every token of `lexer`; `None` when the scan gives up.
    fn run(&mut self, lexer: &mut Lexer<'_>) -> Option<()> {
        if let Some(record) = &mut self.record {
            record.text_len = self.text.len();
        }
        while let Some((token, start)) = lexer.next().ok()? {
            match *self.stack.last()? {
                Group::Module => {
                    self.record_token(token, start, lexer.token_line);
                    self.module_token(token, lexer)?;
                }
                Group::Attr(inner) => self.attr_token(token, inner, start)?,
                Group::InAttr(close) => self.attr_group_token(token, close)?,
                Group::Other(close) => self.other_token(token, close, start)?,
            }
        }
        (self.stack.len() == 1 && self.after_mod.is_none()).then_some(())
    }

    /// A module-level token, for the items [`items`] records: it may end the item before (after a brace
    /// group), begin one, or end the one being read (`;`).
    fn record_token(&mut self, token: Token, start: usize, line: (u32, usize)) {
        let text = self.text;
        let attr_syntax = match token {
            Token::Punct(b'#') | Token::Doc => true,
            Token::Punct(b'!') => self.attr_start == AttrStart::Outer,
            Token::Open(b'[') => self.attr_start != AttrStart::None,
            _ => false,
        };
        let Some(record) = &mut self.record else {
            return;
        };
        if let Some(end) = record.pending {
            match token {
                Token::Punct(b';') => {
                    record.pending = Some(start + 1);
                    record.finish(text);
                    return;
                }
                Token::Close(b'}') => record.finish(text),
                _ if starts_item(text, token) => record.finish(text),
                _ => {
                    record.uncertain = true;
                    record.pending = Some(end);
                    return;
                }
            }
        }
        // `#![`: an inner attribute, which belongs to no item.
        if token == Token::Open(b'[') && self.attr_start == AttrStart::Inner {
            return;
        }
        match (&mut record.draft, token) {
            // The end of an inline module: an item inside left unfinished is not one.
            (Some(_), Token::Close(b'}')) => record.uncertain = true,
            (None, Token::Close(b'}')) => {}
            // A stray `;` is no item; syn reports it when the file is parsed whole.
            (None, Token::Punct(b';')) => record.uncertain = true,
            (Some(_), Token::Punct(b';')) => record.finish_at(text, start + 1, None),
            (draft, _) => {
                let draft = draft.get_or_insert_with(|| Draft {
                    parents: self.parents.clone(),
                    start,
                    line,
                    head: Vec::new(),
                    declares: false,
                    cfg: false,
                });
                if !attr_syntax && draft.head.len() < HEAD_TOKENS {
                    draft.head.push((token, start, line));
                }
                // `#` then `!`: an inner attribute, which belongs to no item.
                if token == Token::Punct(b'!')
                    && self.attr_start == AttrStart::Outer
                    && text[draft.start..start].trim() == "#"
                {
                    record.draft = None;
                }
            }
        }
    }

    /// A module-level brace group closed at `end`: the draft may end here (see [`Recorder::pending`]),
    /// and what its attributes said is its own.
    fn record_brace_end(&mut self, end: usize) {
        let declares = self.item_attrs.wire && self.item_attrs.derive;
        if let Some(record) = &mut self.record
            && let Some(draft) = &mut record.draft
        {
            draft.declares |= declares;
            record.pending = Some(end);
        }
    }

    /// `mod name {`: the module is an item up to its `{`; its items come next, each on its own.
    fn record_inline_module(&mut self, name: &str, end: usize) {
        if let Some(record) = &mut self.record {
            record.finish_at(self.text, end, Some(ItemKind::Mod(name.to_owned())));
        }
    }

    /// A token at module level.
    fn module_token(&mut self, token: Token, lexer: &Lexer<'_>) -> Option<()> {
        if let Some(state) = self.after_mod.take() {
            return self.mod_declaration(state, token, lexer);
        }
        self.macro_rules_token(token);
        match token {
            Token::Ident(s, e) if &self.text[s..e] == "mod" => self.after_mod = Some(None),
            Token::Punct(b'#') => {
                self.attr_start = AttrStart::Outer;
                return Some(());
            }
            Token::Punct(b'!') if self.attr_start == AttrStart::Outer => {
                self.attr_start = AttrStart::Inner;
                return Some(());
            }
            Token::Open(b'[') if self.attr_start != AttrStart::None => {
                self.attr_tokens.clear();
                self.attr_from = lexer.at;
                self.stack
                    .push(Group::Attr(self.attr_start == AttrStart::Inner));
            }
            Token::Open(d) => self.stack.push(Group::Other(closing(d))),
            Token::Close(b'}') if self.stack.len() > 1 => {
                // The end of an inline module, and of the item it is.
                self.stack.pop();
                self.parents.pop();
                self.end_item();
            }
            Token::Close(_) => return None,
            Token::Punct(b';') => self.end_item(),
            _ => {}
        }
        self.attr_start = AttrStart::None;
        Some(())
    }

    /// The end of a module-level item: its attributes no longer apply.
    fn end_item(&mut self) {
        self.path_attr = None;
        self.cfg.clear();
        self.item_attrs = ItemAttrs::default();
    }

    /// Follows `macro_rules! name {` at module level (the body's tokens go to `other_token`).
    fn macro_rules_token(&mut self, token: Token) {
        self.macro_rules = match (self.macro_rules, token) {
            (_, Token::Ident(s, e)) if &self.text[s..e] == "macro_rules" => MacroRules::Keyword,
            (MacroRules::Keyword, Token::Punct(b'!')) => MacroRules::Bang,
            (MacroRules::Bang, Token::Ident(..)) => MacroRules::Named,
            (MacroRules::Named, Token::Open(_)) => MacroRules::Body {
                depth: self.stack.len(),
                wire: false,
                declares: false,
            },
            _ => MacroRules::None,
        };
    }

    /// A token after `mod` (`state` is `None`) or after `mod name` (`state` holds the name).
    fn mod_declaration(
        &mut self,
        state: Option<(String, Pos)>,
        token: Token,
        lexer: &Lexer<'_>,
    ) -> Option<()> {
        let (name, pos) = match (state, token) {
            (None, Token::Ident(s, e)) => {
                let raw = &self.text[s..e];
                let name = raw.strip_prefix("r#").unwrap_or(raw).to_owned();
                self.after_mod = Some(Some((name, lexer.pos(s, e))));
                return Some(());
            }
            (Some(named), Token::Punct(b';') | Token::Open(b'{')) => named,
            _ => return None,
        };
        let inline = token == Token::Open(b'{');
        // The attributes were the module's: the items inside have their own.
        self.item_attrs = ItemAttrs::default();
        self.out.push(ModItem {
            parents: self.parents.clone(),
            name: name.clone(),
            inline,
            path_attr: self.path_attr.take(),
            cfg: self
                .cfg
                .drain(..)
                .map(|(from, to)| cfg_text(&self.text[from..to]))
                .collect(),
            pos,
        });
        if inline {
            self.record_inline_module(&name, lexer.at);
            self.parents.push(name);
            self.stack.push(Group::Module);
        }
        self.attr_start = AttrStart::None;
        Some(())
    }

    /// A token inside the brackets of a module-level attribute (`inner`: `#![...]`), at `start`.
    fn attr_token(&mut self, token: Token, inner: bool, start: usize) -> Option<()> {
        match token {
            Token::Close(b']') => {
                self.stack.pop();
                if !inner
                    && let Some(Token::Ident(s, e)) = self.attr_tokens.first()
                    && matches!(&self.text[*s..*e], "cfg" | "cfg_attr")
                {
                    self.cfg.push((self.attr_from, start));
                }
                if !inner {
                    let found = classify_attr(self.text, &self.attr_tokens);
                    self.item_attrs.merge(found);
                    let declares = self.item_attrs.wire && self.item_attrs.derive;
                    self.declares |= declares;
                    if let Some(draft) = self.record.as_mut().and_then(|r| r.draft.as_mut()) {
                        draft.declares |= declares;
                        draft.cfg |= found.cfg;
                    }
                }
                if let [Token::Ident(s, e), Token::Punct(b'='), Token::Str(ls, le)] =
                    self.attr_tokens.as_slice()
                    && &self.text[*s..*e] == "path"
                    && !inner
                    && self.path_attr.is_none()
                {
                    // Decoded as syn's tree has it; a byte or C string makes the scan give up.
                    self.path_attr = Some(string_value(&self.text[*ls..*le])?);
                }
            }
            Token::Close(_) => return None,
            Token::Open(d) => {
                self.attr_tokens.push(token);
                self.stack.push(Group::InAttr(closing(d)));
            }
            other => self.attr_tokens.push(other),
        }
        Some(())
    }

    /// A token inside a group of a module-level attribute, which `close` ends.
    fn attr_group_token(&mut self, token: Token, close: u8) -> Option<()> {
        match token {
            Token::Open(d) => self.stack.push(Group::InAttr(closing(d))),
            Token::Close(c) if c == close => {
                self.stack.pop();
            }
            Token::Close(_) => return None,
            _ => {}
        }
        self.attr_tokens.push(token);
        Some(())
    }

    /// A token inside any other group, which `close` ends.
    fn other_token(&mut self, token: Token, close: u8, start: usize) -> Option<()> {
        match token {
            Token::Open(d) => self.stack.push(Group::Other(closing(d))),
            Token::Close(c) if c == close => {
                self.stack.pop();
                self.macro_body_end();
                // A brace group closing at module level ends an item (struct, fn, impl, macro).
                if c == b'}' && matches!(self.stack.last(), Some(Group::Module)) {
                    self.record_brace_end(start + 1);
                    self.end_item();
                }
            }
            Token::Close(_) => return None,
            Token::Ident(s, e) => {
                if let MacroRules::Body {
                    wire, declares: d, ..
                } = &mut self.macro_rules
                {
                    let (names_wire, names_declaration) = macro_body_ident(&self.text[s..e]);
                    *wire |= names_wire;
                    *d |= names_declaration;
                }
            }
            _ => {}
        }
        Some(())
    }

    /// After a group closed: the end of a `macro_rules!` body decides whether it may write declarations.
    fn macro_body_end(&mut self) {
        if let MacroRules::Body {
            depth,
            wire,
            declares,
        } = self.macro_rules
            && self.stack.len() < depth + 1
        {
            self.declares |= wire && declares;
            if let Some(draft) = self.record.as_mut().and_then(|r| r.draft.as_mut()) {
                draft.declares |= wire && declares;
            }
            self.macro_rules = MacroRules::None;
        }
    }
}

fn closing(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'(' => b')',
        _ => b']',
    }
}

mod from_syntax;
mod kind;
mod lexer;
mod scanned;

pub(super) use from_syntax::mods_of_syntax;
use from_syntax::{cfg_text, string_value};
#[cfg(test)]
use from_syntax::{mod_cfg, path_attr, pos_of};
use kind::item_kind;
use lexer::{Lexer, Token};
pub(in crate::extract) use scanned::Scanned;

#[cfg(test)]
mod tests;
