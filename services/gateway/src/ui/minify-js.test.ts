import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { minifyJs } from './minify-js.ts';

/** Runs a script body in a fresh context and returns what it assigned to `result`. */
function run(code: string): unknown {
  const ctx: { result?: unknown } = {};
  vm.runInNewContext(code, ctx);
  return ctx.result;
}

describe('minifyJs', () => {
  it.each([
    ['keeps string contents byte for byte', `result = 'a  //  b' + "c /* d */ e" + 'it\\'s';`],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the input is JavaScript source containing a template
    ['keeps template literals and nested expressions', 'const x = 2;\nresult = `  ${x > 1 ? `${"}"}  two` : \'one\'} // not a comment `;'],
    ['keeps regex literals with slashes, classes and flags', "result = 'a/b//c'.replace(/\\/+/g, '|') + /[/]x/i.test('/X');"],
    ['tells division from a regex', 'const a = 10, b = 2, g = 1;\nresult = a / b / g + (a) / 5;'],
    ['does not join + + or - -', 'let a = 1;\nlet b = 2;\nresult = a + +b - -a + a - +b;'],
    ['drops comments without joining words', 'let /* one */ a = 1; // two\nconst\n/* three */ b = a;\nresult = typeof b;'],
    ['keeps regex after return and typeof', 'function f(s) {\n  return /^\\d+$/.test(s);\n}\nresult = [f("12"), f("1a")];'],
    ['keeps numbers with fractions and exponents', 'result = 1.5e-3 * 2 + 0.25 + .5;'],
  ])('%s', (_name, source) => {
    const minified = minifyJs(source);
    expect(run(minified)).toEqual(run(source));
    expect(minified.length).toBeLessThan(source.length);
  });

  it('removes indentation and newlines', () => {
    expect(minifyJs('function f(a, b) {\n  // sum\n  return a + b;\n}\n')).toBe('function f(a,b){return a+b;}');
  });

  it('refuses broken input instead of emitting something else', () => {
    expect(() => minifyJs("const a = 'open;\n")).toThrow(/unterminated string/);
    expect(() => minifyJs('const a = `open;')).toThrow(/unterminated template/);
    expect(() => minifyJs('/* open')).toThrow(/unterminated comment/);
  });
});
