//! A cheap look at a file's structure without syn: its item-level `mod` declarations (with `#[path]`),
//! whether an item may declare a protocol or a message, and its items (kind, name, byte range: [`items`])
//! so that syn parses only the ones a check needs, each alone. Found by a small lexer that knows
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
pub(crate) struct Pos {
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// An item-level `mod` declaration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ModItem {
    /// The inline modules (`mod a { ... }`) it is written in, outermost first (raw prefixes stripped).
    pub(crate) parents: Vec<String>,
    /// Its name (`r#` stripped).
    pub(crate) name: String,
    /// `mod name { ... }` rather than `mod name;`.
    pub(crate) inline: bool,
    /// The value of its first `#[path = "..."]` attribute.
    pub(crate) path_attr: Option<String>,
    /// Its `cfg` and `cfg_attr` attributes, each as the text inside its brackets ([`cfg_text`]): whether
    /// the module exists depends on the build (`cfg` decides).
    pub(crate) cfg: Vec<String>,
    /// Its name's position.
    pub(crate) pos: Pos,
}

/// A module-level item (or an item of an inline module) as [`items`] reads it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ScanItem {
    /// The inline modules it is written in, outermost first (raw prefixes stripped).
    pub(crate) parents: Vec<String>,
    pub(crate) kind: ItemKind,
    /// Its bytes in the scanned text: from its first doc comment, attribute or word to its closing `;`
    /// or `}` (for an inline module, to its opening `{`: its items are items of their own).
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The 1-based line of `start`, and the byte offset where that line starts.
    pub(crate) line: u32,
    pub(crate) line_start: usize,
    /// It may declare a protocol or a message (see the module documentation).
    pub(crate) declares: bool,
    /// It has an outer `#[cfg(...)]` (possibly behind `cfg_attr`): whether it exists depends on the
    /// build, which only its parsed attributes tell.
    pub(crate) cfg: bool,
}

/// What a [`ScanItem`] is, as far as name resolution needs to know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum ItemKind {
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
pub(crate) struct Scan {
    /// The item-level `mod` declarations in source order, inline ones included.
    pub(crate) mods: Vec<ModItem>,
    /// An item may declare a protocol or a message (see the module documentation).
    pub(crate) declares: bool,
}

/// The text syn parses: without a byte order mark, and without a shebang line (the newline stays), as
/// `syn::parse_file` does, so that positions agree.
pub(crate) fn syn_content(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(rest) = text.strip_prefix("#!")
        && !rest.trim_start().starts_with('[')
    {
        return text.find('\n').map_or("", |i| &text[i..]);
    }
    text
}

/// A token of the lexer; literal and comment contents are skipped, not returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// An identifier or keyword, raw prefix included, as byte offsets.
    Ident(usize, usize),
    /// A string literal: byte offsets of the whole literal (prefix, quotes and hashes included).
    Str(usize, usize),
    /// Any other literal or a lifetime.
    Other,
    Open(u8),
    Close(u8),
    Punct(u8),
    /// An outer doc comment (`/// ...`, `/** ... */`): an attribute of the item after it.
    Doc,
}

struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    line: u32,
    line_start: usize,
    /// The line of the last token's first byte, and the byte offset where that line starts.
    token_line: (u32, usize),
}

/// The ASCII bytes that continue an identifier (`is_ident_continue` of an ASCII character).
const ASCII_IDENT_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Self {
        Lexer {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            line_start: 0,
            token_line: (1, 0),
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.peek_at(self.at + ahead)
    }

    fn peek_at(&self, at: usize) -> u8 {
        self.bytes.get(at).copied().unwrap_or(0)
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|s| s.chars().next())
    }

    /// Advances to `to`, counting the newlines passed.
    fn advance_to(&mut self, to: usize) {
        let skipped = &self.bytes[self.at..to];
        for (i, &b) in skipped.iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.at + i + 1;
            }
        }
        self.at = to;
    }

    fn pos(&self, start: usize, end: usize) -> Pos {
        Pos {
            line: self.line,
            column: u32::try_from(self.text[self.line_start..start].chars().count() + 1)
                .unwrap_or(u32::MAX),
            start,
            end,
        }
    }

    /// The end of the identifier starting at `from`.
    fn ident_end(&self, from: usize) -> usize {
        // ASCII bytes first (nearly every identifier), then characters from the first other byte on.
        let ascii = self.bytes[from..]
            .iter()
            .position(|&b| !ASCII_IDENT_CONTINUE[usize::from(b)])
            .map_or(self.bytes.len(), |i| from + i);
        if self.bytes.get(ascii).is_none_or(u8::is_ascii) {
            return ascii;
        }
        let mut end = ascii;
        for c in self.text[end..].chars() {
            if !is_ident_continue(c) {
                break;
            }
            end += c.len_utf8();
        }
        end
    }

    /// Skips a quoted literal body starting after the opening quote; `None` when unterminated.
    fn quoted_end(&self, from: usize, quote: u8) -> Option<usize> {
        let mut i = from;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'\\' => i += 2,
                b if b == quote => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    /// Skips a raw string: `from` is at the first `#` or the `"`.
    fn raw_end(&self, from: usize) -> Option<usize> {
        let hashes = self.bytes[from..]
            .iter()
            .take_while(|&&b| b == b'#')
            .count();
        if self.bytes.get(from + hashes) != Some(&b'"') {
            return None;
        }
        let mut i = from + hashes + 1;
        while i < self.bytes.len() {
            if self.bytes[i] == b'"'
                && self.bytes[i + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&b| b == b'#')
                    .count()
                    == hashes
            {
                return Some(i + 1 + hashes);
            }
            i += 1;
        }
        None
    }

    /// The end of a literal suffix (`"x"suffix`, `1u8`).
    fn suffix_end(&self, from: usize) -> usize {
        match self.char_at(from) {
            Some(c) if is_ident_start(c) => self.ident_end(from),
            _ => from,
        }
    }

    /// The next token and the position of its first byte; `Ok(None)` at the end; `Err(())` when the text
    /// is not something the scan can read with certainty.
    fn next(&mut self) -> Result<Option<(Token, usize)>, ()> {
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Ok(None);
            };
            let start = self.at;
            self.token_line = (self.line, self.line_start);
            let token = match b {
                b'\n' => {
                    self.line += 1;
                    self.at += 1;
                    self.line_start = self.at;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    // A run at once (indentation).
                    self.at += 1;
                    while let Some(b' ' | b'\t' | b'\r' | 0x0b | 0x0c) = self.bytes.get(self.at) {
                        self.at += 1;
                    }
                    continue;
                }
                b'/' if self.peek(1) == b'/' => {
                    let end = self.bytes[start..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.bytes.len(), |i| start + i);
                    self.at = end;
                    // `///` but not `////`: an outer doc comment.
                    if self.peek_at(start + 2) == b'/' && self.peek_at(start + 3) != b'/' {
                        Token::Doc
                    } else {
                        continue;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let end = self.block_comment_end(start)?;
                    self.advance_to(end);
                    // `/** ... */` but not `/***` or `/**/`: an outer doc comment.
                    let doc = self.peek_at(start + 2) == b'*'
                        && !matches!(self.peek_at(start + 3), b'*' | b'/');
                    if doc {
                        Token::Doc
                    } else {
                        continue;
                    }
                }
                b'"' => Token::Str(start, self.quoted_literal(start + 1, b'"')?),
                b'\'' => self.char_or_lifetime(start)?,
                b'0'..=b'9' => self.number(start),
                b'{' | b'(' | b'[' => {
                    self.at += 1;
                    Token::Open(b)
                }
                b'}' | b')' | b']' => {
                    self.at += 1;
                    Token::Close(b)
                }
                _ if b.is_ascii() && !b.is_ascii_alphabetic() && b != b'_' => {
                    self.at += 1;
                    Token::Punct(b)
                }
                _ => {
                    let c = self.char_at(start).ok_or(())?;
                    if c.is_whitespace() {
                        self.at += c.len_utf8();
                        continue;
                    }
                    if !is_ident_start(c) {
                        return Err(());
                    }
                    self.word(start)?
                }
            };
            return Ok(Some((token, start)));
        }
    }

    /// The end of the (possibly nested) block comment starting at `start`; `Err` when unterminated.
    fn block_comment_end(&self, start: usize) -> Result<usize, ()> {
        let mut depth = 0usize;
        let mut i = start;
        loop {
            match (self.bytes.get(i), self.bytes.get(i + 1)) {
                (Some(b'/'), Some(b'*')) => {
                    depth += 1;
                    i += 2;
                }
                (Some(b'*'), Some(b'/')) => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        return Ok(i);
                    }
                }
                (Some(_), _) => i += 1,
                (None, _) => return Err(()),
            }
        }
    }

    /// Passes a quoted literal whose body starts at `body_from`, and its suffix; returns its end.
    fn quoted_literal(&mut self, body_from: usize, quote: u8) -> Result<usize, ()> {
        let end = self.quoted_end(body_from, quote).ok_or(())?;
        let end = self.suffix_end(end);
        self.advance_to(end);
        Ok(end)
    }

    /// A char literal (`'a'`, `'\n'`, `'\u{1F600}'`) or a lifetime or label (`'a`, `'static`).
    fn char_or_lifetime(&mut self, start: usize) -> Result<Token, ()> {
        if self.peek(1) == b'\\' {
            self.quoted_literal(start + 1, b'\'')?;
            return Ok(Token::Other);
        }
        let c = self.char_at(start + 1).ok_or(())?;
        let after = start + 1 + c.len_utf8();
        if self.bytes.get(after) == Some(&b'\'') {
            let end = self.suffix_end(after + 1);
            self.advance_to(end);
            return Ok(Token::Other);
        }
        if !is_ident_start(c) {
            return Err(());
        }
        self.at = self.ident_end(start + 1);
        Ok(Token::Other)
    }

    /// A number literal with its suffix.
    fn number(&mut self, start: usize) -> Token {
        let mut i = start;
        while i < self.bytes.len() {
            let c = self.bytes[i];
            // Digits, suffixes, and a `.` followed by a digit (`1.5`, not `1..2`).
            let fraction = c == b'.' && self.bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !(c.is_ascii_alphanumeric() || c == b'_' || fraction) {
                break;
            }
            i += 1;
        }
        self.at = i;
        Token::Other
    }

    /// An identifier (raw ones included) or a literal with a prefix (`b"..."`, `b'x'`, `r#"..."#`).
    fn word(&mut self, start: usize) -> Result<Token, ()> {
        let end = self.ident_end(start);
        let word = &self.text[start..end];
        let next = self.bytes.get(end).copied().unwrap_or(0);
        match (word, next) {
            ("b" | "c", b'"') => Ok(Token::Str(start, self.quoted_literal(end + 1, b'"')?)),
            ("b", b'\'') => {
                self.quoted_literal(end + 1, b'\'')?;
                Ok(Token::Other)
            }
            ("r" | "br" | "cr", b'"' | b'#') => {
                let is_raw_ident = word == "r"
                    && next == b'#'
                    && self.char_at(end + 1).is_some_and(is_ident_start);
                if is_raw_ident {
                    let ident_end = self.ident_end(end + 1);
                    self.at = ident_end;
                    return Ok(Token::Ident(start, ident_end));
                }
                let lit_end = self.raw_end(end).ok_or(())?;
                let lit_end = self.suffix_end(lit_end);
                self.advance_to(lit_end);
                Ok(Token::Str(start, lit_end))
            }
            _ => {
                self.at = end;
                Ok(Token::Ident(start, end))
            }
        }
    }
}

/// The value of a string literal token as written (`"a\tb"`, `r#"x"#`); `None` for byte or C strings,
/// suffixed literals and escapes the scan does not decode.
fn string_value(lit: &str) -> Option<String> {
    if let Some(rest) = lit.strip_prefix('r') {
        let hashes = rest.len() - rest.trim_start_matches('#').len();
        let closing = format!("\"{}", "#".repeat(hashes));
        let body = rest[hashes..]
            .strip_prefix('"')?
            .strip_suffix(closing.as_str())?;
        return Some(body.to_owned());
    }
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '\'' => out.push('\''),
                '\n' => {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                }
                _ => return None,
            },
            '\r' => return None,
            c => out.push(c),
        }
    }
    Some(out)
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
pub(crate) fn scan(text: &str) -> Option<Scan> {
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
pub(crate) fn scan_with_items(text: &str) -> Option<(Scan, Option<Vec<ScanItem>>)> {
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
pub(crate) fn items(text: &str) -> Option<Vec<ScanItem>> {
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
pub(crate) fn macro_body_ident(ident: &str) -> (bool, bool) {
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
                    // syn decodes the literal with every escape; give up on unusual ones.
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
mod scanned;

use from_syntax::cfg_text;
pub(super) use from_syntax::mods_of_syntax;
#[cfg(test)]
use from_syntax::{mod_cfg, path_attr, pos_of};
use kind::item_kind;
pub(in crate::extract) use scanned::Scanned;

#[cfg(test)]
mod tests;
