// The TextMate grammar, tokenized by the engine VS Code uses (vscode-textmate on
// vscode-oniguruma): scopes of every construct, the language configuration, and every
// bundled rulebook without an invalid character.
//
// Run: cd editor-support/vscode && npm ci && npm test   (or node --test test/)
'use strict';

const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const EXTENSION = path.resolve(__dirname, '..');
const REPO = path.resolve(EXTENSION, '..', '..');
const PACKAGE = require(path.join(EXTENSION, 'package.json'));
const GRAMMAR_PATH = path.join(EXTENSION, 'syntaxes', 'drillbook.tmLanguage.json');
const SCOPE = 'source.drillbook';

let grammar;

before(async () => {
  const wasm = fs.readFileSync(
    path.join(EXTENSION, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== SCOPE) return null;
      const text = fs.readFileSync(GRAMMAR_PATH, 'utf8');
      return vsctm.parseRawGrammar(text, GRAMMAR_PATH);
    },
  });
  grammar = await registry.loadGrammar(SCOPE);
  assert.ok(grammar, 'the grammar did not load');
});

// Tokenize a text: one array of {text, scopes} per line.
function tokenize(text) {
  let stack = vsctm.INITIAL;
  return text.split(/\r?\n/).map((line) => {
    const result = grammar.tokenizeLine(line, stack);
    stack = result.ruleStack;
    return result.tokens.map((t) => ({
      text: line.slice(t.startIndex, t.endIndex),
      scopes: t.scopes,
    }));
  });
}

// The scopes of the token that is exactly `text` (its `nth` occurrence) on line `line`.
function scopesOf(lines, line, text, nth = 0) {
  const found = lines[line].filter((t) => t.text === text);
  assert.ok(found.length > nth,
    `no token ${JSON.stringify(text)} on line ${line}: ` +
    JSON.stringify(lines[line].map((t) => t.text)));
  return found[nth].scopes;
}

function expectScope(lines, line, text, scope, nth = 0) {
  const scopes = scopesOf(lines, line, text, nth);
  assert.ok(scopes.includes(scope),
    `${JSON.stringify(text)} on line ${line} has ${JSON.stringify(scopes)}, not ${scope}`);
}

function expectNoScope(lines, line, text, prefix, nth = 0) {
  const scopes = scopesOf(lines, line, text, nth);
  assert.ok(!scopes.some((s) => s.startsWith(prefix)),
    `${JSON.stringify(text)} on line ${line} has ${JSON.stringify(scopes)}`);
}

const S = '.drillbook';

test('package.json contributes the language and the grammar', () => {
  const [language] = PACKAGE.contributes.languages;
  assert.equal(language.id, 'drillbook');
  assert.deepEqual(language.extensions, ['.drill']);
  assert.ok(language.aliases.includes('drillbook'));
  assert.equal(language.configuration, './language-configuration.json');
  const [contributed] = PACKAGE.contributes.grammars;
  assert.equal(contributed.language, 'drillbook');
  assert.equal(contributed.scopeName, SCOPE);
  assert.equal(path.resolve(EXTENSION, contributed.path), GRAMMAR_PATH);
  assert.ok(PACKAGE.devDependencies['vscode-textmate']);
  assert.ok(PACKAGE.devDependencies['vscode-oniguruma']);
});

test('language configuration: comments, brackets, quotes, indentation', () => {
  const conf = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'language-configuration.json'), 'utf8'));
  assert.equal(conf.comments.lineComment, '--');
  assert.deepEqual(conf.brackets, [['(', ')'], ['[', ']']]);
  assert.ok(conf.autoClosingPairs.some((p) => p.open === '"' && p.close === '"'));
  const increase = new RegExp(conf.indentationRules.increaseIndentPattern);
  for (const header of [
    'section 12.4.1 "Morale Check Results" ru "Результаты"',
    '  enum Order ru "Приказ"',
    '  scale MoraleState',
    '  record Unit "unit"',
    '  table initiative(order: Order, kind: InitiativeRoll) -> Range "x"',
    '  modifiers drm(w: Wing) "x" combine sum',
    '  example "4.3 a = b"',
    '  define f(u: Unit) -> Bool "a = b" -- then clauses',
    '  exception shaken to current_morale "one less"',
    'replace morale_loss with',
    'in section 5.7',
    '  procedure fire_phase(u: Unit) "Fire Phase"',
    '  require not_shaken of may_charge "not while shaken"',
    '    step shoot "fire"',
  ]) assert.ok(increase.test(header), header);
  for (const line of [
    '  define may_fire(u: Unit) -> Bool "may it fire?" = true',
    '    when u.morale == Shaken',
    '  check c(u: Unit) = roll d10 at most 3',
    '    expect x == 1',
    'drop order_change_drm',
    '    step shoot "fire" = add 1 to u.hits',
    '  requirements may_charge(u: Unit) "may the unit charge?"',
  ]) assert.ok(!increase.test(line), line);
});

test('header, annotations and use', () => {
  const lines = tokenize([
    'rulebook "Musket & Pike" ru "Мушкет" edition "6.0" languages en, ru',
    '  source "S1"',
    'use "vocabulary.drill"',
  ].join('\n'));
  expectScope(lines, 0, 'rulebook', 'storage.type.declaration' + S);
  expectScope(lines, 0, 'edition', 'keyword.other' + S);
  expectScope(lines, 0, 'languages', 'keyword.other' + S);
  expectScope(lines, 0, 'Musket & Pike', 'string.quoted.double' + S);
  expectScope(lines, 0, 'Мушкет', 'string.quoted.double' + S);
  expectScope(lines, 0, ',', 'punctuation.separator.comma' + S);
  expectScope(lines, 1, 'source', 'keyword.other' + S);
  expectScope(lines, 2, 'use', 'storage.type.declaration' + S);
});

test('section numbers', () => {
  const lines = tokenize([
    'section 12.4.1 "Morale Check Results"',
    'section 5 "Leaders"',
    'section 13.2a "Rally"',
    'in section 5.7',
  ].join('\n'));
  expectScope(lines, 0, 'section', 'storage.type.declaration' + S);
  expectScope(lines, 0, '12.4.1', 'entity.name.section' + S);
  expectScope(lines, 1, '5', 'entity.name.section' + S);
  expectScope(lines, 2, '13.2a', 'entity.name.section' + S);
  expectScope(lines, 3, 'in', 'keyword.other' + S);
  expectScope(lines, 3, '5.7', 'entity.name.section' + S);
});

test('declarations name types and rules', () => {
  const lines = tokenize([
    '  enum Order ru "Приказ"',
    '  scale MoraleState',
    '  record Unit "unit"',
    '  define morale_loss(u: Unit) -> Effects "one level worse"',
    '  exception shaken to current_morale "one less"',
    '  table initiative(order: Order) -> Range',
    '  modifiers initiative_drm(w: Wing) combine sum capped -3..3',
    '  check continuation(w: Wing) = roll d10 + drm(w) clamped within initiative(w.order)',
    '  die d10 faces 0..9',
    '  option NGBG_Landskrona "Landskrona" default Off',
  ].join('\n'));
  expectScope(lines, 0, 'enum', 'storage.type.declaration' + S);
  expectScope(lines, 0, 'Order', 'entity.name.type' + S);
  expectScope(lines, 1, 'MoraleState', 'entity.name.type' + S);
  expectScope(lines, 2, 'Unit', 'entity.name.type' + S);
  expectScope(lines, 3, 'define', 'storage.type.declaration' + S);
  expectScope(lines, 3, 'morale_loss', 'entity.name.function' + S);
  expectScope(lines, 3, '->', 'punctuation.separator.return-type' + S);
  expectScope(lines, 3, '(', 'punctuation.section.parens.begin' + S);
  expectScope(lines, 3, ':', 'punctuation.separator.colon' + S);
  expectScope(lines, 4, 'exception', 'storage.type.declaration' + S);
  expectScope(lines, 4, 'shaken', 'entity.name.function' + S);
  expectScope(lines, 4, 'to', 'keyword.other' + S);
  expectScope(lines, 5, 'initiative', 'entity.name.function' + S);
  expectScope(lines, 6, 'initiative_drm', 'entity.name.function' + S);
  expectScope(lines, 6, 'combine', 'keyword.other' + S);
  expectScope(lines, 6, 'capped', 'keyword.other' + S);
  expectScope(lines, 6, '-3..3', 'constant.numeric.range' + S);
  expectScope(lines, 7, 'continuation', 'entity.name.function' + S);
  expectScope(lines, 7, 'roll', 'keyword.other' + S);
  expectScope(lines, 7, '+', 'keyword.operator.arithmetic' + S);
  expectScope(lines, 7, 'clamped', 'keyword.other' + S);
  expectScope(lines, 7, 'within', 'keyword.other' + S);
  expectScope(lines, 7, 'order', 'variable.other.member' + S);
  expectScope(lines, 8, 'die', 'storage.type.declaration' + S);
  expectScope(lines, 8, 'faces', 'keyword.other' + S);
  expectScope(lines, 8, '0..9', 'constant.numeric.range' + S);
  expectScope(lines, 9, 'option', 'storage.type.declaration' + S);
  expectScope(lines, 9, 'default', 'keyword.other' + S);
});

test('requirements, procedures, steps; violates, choose ... from, after', () => {
  const lines = tokenize([
    '  requirements may_charge(u: Unit) "may the unit charge?"',
    '  require not_shaken of may_charge "not while shaken"',
    '  procedure fire_phase(u: Unit) "Fire Phase"',
    '    step shoot "fire" = add 1 to u.hits',
    '    stop done "enough" when u.hits >= 3',
    '  define blocked(u: Unit) -> Bool = violates(may_charge(u), not_shaken)',
    '  define pick(u: Unit) -> Effects = choose t from Unit v where v.on_map',
    '  define later(u: Unit) -> Bool = after shoot: u.hits > 0',
  ].join('\n'));
  expectScope(lines, 0, 'requirements', 'storage.type.declaration' + S);
  expectScope(lines, 0, 'may_charge', 'entity.name.function' + S);
  expectScope(lines, 1, 'require', 'storage.type.declaration' + S);
  expectScope(lines, 1, 'not_shaken', 'entity.name.function' + S);
  expectScope(lines, 1, 'of', 'keyword.other' + S);
  expectScope(lines, 2, 'procedure', 'storage.type.declaration' + S);
  expectScope(lines, 2, 'fire_phase', 'entity.name.function' + S);
  expectScope(lines, 3, 'step', 'storage.type.declaration' + S);
  expectScope(lines, 3, 'shoot', 'entity.name.function' + S);
  expectScope(lines, 4, 'stop', 'storage.type.declaration' + S);
  expectScope(lines, 4, 'done', 'entity.name.function' + S);
  expectScope(lines, 4, 'when', 'keyword.control' + S);
  expectScope(lines, 5, 'violates', 'support.function.builtin' + S);
  expectScope(lines, 6, 'choose', 'keyword.other' + S);
  expectScope(lines, 6, 'from', 'keyword.other' + S);
  expectScope(lines, 7, 'after', 'keyword.other' + S);
});

test('records: ranges, optional types, defaults', () => {
  const lines = tokenize([
    '    rating: -3..3 "leadership rating"',
    '    hits: 0..40 = 0',
    '    leader: Leader? "if any"',
    '    escorts: list of Unit',
  ].join('\n'));
  expectScope(lines, 0, '-3..3', 'constant.numeric.range' + S);
  expectScope(lines, 1, '0..40', 'constant.numeric.range' + S);
  expectScope(lines, 1, '=', 'keyword.operator.assignment' + S);
  expectScope(lines, 1, '0', 'constant.numeric.integer' + S);
  expectScope(lines, 2, '?', 'punctuation.separator.optional' + S);
  expectScope(lines, 3, 'list', 'keyword.other' + S);
  expectScope(lines, 3, 'of', 'keyword.other' + S);
});

test('expressions: operators, words, constants, builtins, signs', () => {
  const lines = tokenize([
    '    = if a != b and not c <= d or e >= f then x - 1 else -1',
    '    = u.morale in [Shaken, Broken] and u.leader is none',
    '    = [add n to u.hits, remove u, nothing] == false',
    '    = max(a, b) + count(Unit u where u.on_map) * 2 < 0 .. 5 > x.count',
    '    when true',
  ].join('\n'));
  expectScope(lines, 0, '=', 'keyword.operator.assignment' + S);
  expectScope(lines, 0, 'if', 'keyword.control' + S);
  expectScope(lines, 0, 'then', 'keyword.control' + S);
  expectScope(lines, 0, 'else', 'keyword.control' + S);
  expectScope(lines, 0, '!=', 'keyword.operator.comparison' + S);
  expectScope(lines, 0, '<=', 'keyword.operator.comparison' + S);
  expectScope(lines, 0, '>=', 'keyword.operator.comparison' + S);
  expectScope(lines, 0, 'and', 'keyword.operator.logical' + S);
  expectScope(lines, 0, 'not', 'keyword.operator.logical' + S);
  expectScope(lines, 0, 'or', 'keyword.operator.logical' + S);
  expectScope(lines, 0, '-', 'keyword.operator.arithmetic' + S);   // x - 1: binary
  expectScope(lines, 0, '1', 'constant.numeric.integer' + S);
  expectScope(lines, 0, '-1', 'constant.numeric.integer' + S);     // else -1: signed
  expectScope(lines, 1, 'in', 'keyword.other' + S);
  expectScope(lines, 1, 'is', 'keyword.other' + S);
  expectScope(lines, 1, 'none', 'constant.language' + S);
  expectScope(lines, 1, '[', 'punctuation.section.brackets.begin' + S);
  expectScope(lines, 1, 'morale', 'variable.other.member' + S);
  expectScope(lines, 2, 'add', 'keyword.other' + S);
  expectScope(lines, 2, 'remove', 'keyword.other' + S);
  expectScope(lines, 2, 'nothing', 'constant.language' + S);
  expectScope(lines, 2, 'false', 'constant.language' + S);
  expectScope(lines, 2, '==', 'keyword.operator.comparison' + S);
  expectScope(lines, 3, 'max', 'support.function.builtin' + S);
  expectScope(lines, 3, 'count', 'support.function.builtin' + S);
  expectScope(lines, 3, 'where', 'keyword.other' + S);
  expectScope(lines, 3, '*', 'keyword.operator.arithmetic' + S);
  expectScope(lines, 3, '..', 'keyword.operator.range' + S);
  expectNoScope(lines, 3, 'count', 'support.function', 1);           // x.count: a field
  expectScope(lines, 3, 'count', 'variable.other.member' + S, 1);
  expectScope(lines, 4, 'when', 'keyword.control' + S);
  expectScope(lines, 4, 'true', 'constant.language' + S);
});

test('names are whole words: no keyword inside a name', () => {
  const lines = tokenize('    = to_x + settle_down + d10 + Мораль + x.note');
  for (const name of ['to_x', 'settle_down', 'd10', 'Мораль']) {
    expectNoScope(lines, 0, name, 'keyword');
    expectNoScope(lines, 0, name, 'constant');
  }
  expectScope(lines, 0, 'note', 'variable.other.member' + S);
});

test('tables: corner, ranges, NA, markers, signed numbers, pairs, text, words as names', () => {
  const lines = tokenize([
    '    | current \\ desired | Charge | then      |',
    '    | Charge            | —      | 0-5*      |',
    '    | Rally             | 0-1    | –         |',
    '    | MakeReady         | -1     | FullMove¹ |',
    '    | Column            | 3/2    | "text" ** |',
  ].join('\n'));
  expectScope(lines, 0, '|', 'punctuation.separator.table' + S);
  expectScope(lines, 0, '|', 'punctuation.separator.table' + S, 3);
  expectScope(lines, 0, '\\', 'punctuation.separator.corner' + S);
  expectNoScope(lines, 0, 'then', 'keyword');
  expectScope(lines, 1, '—', 'constant.language.na' + S);
  expectScope(lines, 1, '0-5', 'constant.numeric.range' + S);
  expectScope(lines, 1, '*', 'constant.other.marker' + S);
  expectScope(lines, 2, '0-1', 'constant.numeric.range' + S);
  expectScope(lines, 2, '–', 'constant.language.na' + S);
  expectScope(lines, 3, '-1', 'constant.numeric.integer' + S);
  expectScope(lines, 3, '¹', 'constant.other.marker' + S);
  expectScope(lines, 4, '3', 'constant.numeric.integer' + S);
  expectScope(lines, 4, '/', 'punctuation.separator.pair' + S);
  expectScope(lines, 4, 'text', 'string.quoted.double' + S);
  expectScope(lines, 4, '**', 'constant.other.marker' + S);
});

test('markers', () => {
  const lines = tokenize([
    '  marker ¹ must_advance "Must advance."',
    '  marker ** rout_only "Rout Phase only."',
    '  marker † dagger "A dagger."',
    '    = 2 * x',
  ].join('\n'));
  expectScope(lines, 0, 'marker', 'storage.type.declaration' + S);
  expectScope(lines, 0, '¹', 'constant.other.marker' + S);
  expectScope(lines, 1, '**', 'constant.other.marker' + S);
  expectScope(lines, 2, '†', 'constant.other.marker' + S);
  expectScope(lines, 3, '*', 'keyword.operator.arithmetic' + S);   // outside a row: times
});

test('comments', () => {
  const lines = tokenize([
    '-- Morale (12)',
    'section 12 "Morale" -- trailing',
    '    | 0-5 | -1 | -- row comment',
    '    x = y --1',
    '    note "-- not a comment"',
  ].join('\n'));
  expectScope(lines, 0, '--', 'punctuation.definition.comment' + S);
  expectScope(lines, 0, ' Morale (12)', 'comment.line.double-dash' + S);
  expectScope(lines, 1, ' trailing', 'comment.line.double-dash' + S);
  expectScope(lines, 2, ' row comment', 'comment.line.double-dash' + S);
  expectScope(lines, 2, '-1', 'constant.numeric.integer' + S);
  expectScope(lines, 3, '1', 'comment.line.double-dash' + S);
  expectScope(lines, 4, '-- not a comment', 'string.quoted.double' + S);
});

test('strings: escapes, and an unterminated string ends with its line', () => {
  const lines = tokenize([
    '    note "a \\"quoted\\" word, a \\\\ and a \\n"',
    '    note "unterminated',
    '    note "«Без Продления»"',
  ].join('\n'));
  expectScope(lines, 0, '\\"', 'constant.character.escape' + S);
  expectScope(lines, 0, '\\\\', 'constant.character.escape' + S);
  expectScope(lines, 0, '\\n', 'constant.character.escape' + S);
  expectScope(lines, 0, 'quoted', 'string.quoted.double' + S);
  expectScope(lines, 1, 'unterminated', 'string.quoted.double' + S);
  expectScope(lines, 2, 'note', 'keyword.other' + S);            // the string did not go on
  expectScope(lines, 2, '«Без Продления»', 'string.quoted.double' + S);
});

test('examples', () => {
  const lines = tokenize([
    '  example "5.7 a leader adjacent to the enemy: +1"',
    '    given wc: Leader(rating = -1, adjacent_to_enemy = true)',
    '    roll d10 = 4, 4',
    '    option NGBG_Halmstad = On',
    '    choose target = u, v',
    '    expect after rally(u, ByWingCommander): u.morale == Shaken',
  ].join('\n'));
  expectScope(lines, 0, 'example', 'storage.type.declaration' + S);
  expectScope(lines, 1, 'given', 'keyword.other' + S);
  expectScope(lines, 1, '-1', 'constant.numeric.integer' + S);
  expectScope(lines, 2, 'roll', 'keyword.other' + S);
  expectScope(lines, 2, '4', 'constant.numeric.integer' + S, 1);
  expectScope(lines, 3, 'option', 'storage.type.declaration' + S);
  expectScope(lines, 4, 'choose', 'keyword.other' + S);
  expectScope(lines, 5, 'expect', 'keyword.other' + S);
  expectScope(lines, 5, 'after', 'keyword.other' + S);
});

test('variant lines: replace, drop, change, switch, in section', () => {
  const lines = tokenize([
    'variant "House rule" of "../rulebook.drill"',
    'change order_change(Charge, -1) to 0-4*',
    'drop order_change_drm',
    'switch NGBG_Landskrona On',
    'replace morale_loss with',
    'in section 5.7',
  ].join('\n'));
  expectScope(lines, 0, 'variant', 'storage.type.declaration' + S);
  expectScope(lines, 0, 'of', 'keyword.other' + S);
  expectScope(lines, 1, 'change', 'keyword.other' + S);
  expectScope(lines, 1, '-1', 'constant.numeric.integer' + S);
  expectScope(lines, 1, 'to', 'keyword.other' + S);
  expectScope(lines, 1, '0-4', 'constant.numeric.range' + S);
  expectScope(lines, 1, '*', 'constant.other.marker' + S);
  expectScope(lines, 2, 'drop', 'keyword.other' + S);
  expectScope(lines, 3, 'switch', 'keyword.other' + S);
  expectScope(lines, 4, 'replace', 'keyword.other' + S);
  expectScope(lines, 4, 'with', 'keyword.other' + S);
  expectScope(lines, 5, '5.7', 'entity.name.section' + S);
});

test('characters outside the language are invalid', () => {
  const lines = tokenize('    x = $1 ; !y');
  expectScope(lines, 0, '$', 'invalid.illegal.character' + S);
  expectScope(lines, 0, ';', 'invalid.illegal.character' + S);
  expectScope(lines, 0, '!', 'invalid.illegal.character' + S);
});

function drillFiles(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...drillFiles(full));
    else if (entry.name.endsWith('.drill')) out.push(full);
  }
  return out.sort();
}

const RULEBOOKS = drillFiles(path.join(REPO, 'rulebooks'));

test('there are bundled rulebooks', () => {
  assert.ok(RULEBOOKS.length > 0, `no .drill files under ${path.join(REPO, 'rulebooks')}`);
});

for (const file of RULEBOOKS) {
  test(`rulebook ${path.relative(REPO, file)} tokenizes, no invalid characters`, () => {
    const text = fs.readFileSync(file, 'utf8');
    let stack = vsctm.INITIAL;
    text.split(/\r?\n/).forEach((line, i) => {
      const result = grammar.tokenizeLine(line, stack);
      stack = result.ruleStack;
      const joined = result.tokens.map((t) => line.slice(t.startIndex, t.endIndex)).join('');
      assert.equal(joined, line, `line ${i + 1}: tokens do not cover the line`);
      for (const t of result.tokens) {
        const bad = t.scopes.find((s) => s.startsWith('invalid'));
        assert.ok(!bad, `line ${i + 1}: ${JSON.stringify(line.slice(t.startIndex, t.endIndex))} is ${bad}`);
      }
    });
  });
}
