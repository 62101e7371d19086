// @ts-expect-error: plain JavaScript, run by npm run bundle
import { eagerFactories } from '../../scripts/eager-factories.js'

describe('eagerFactories', () => {
  it('puts each module factory of the entry chunk in parentheses, and nothing else', () => {
    const code =
      'import{createRequire as t}from"module";var e={659:(t,e,r)=>{r.d(e,{a:()=>1})},8204:function(t){t.exports=2}};' +
      'const o={a:()=>3};function n(t){return e[t]}'
    expect(eagerFactories(code)).toBe(
      'import{createRequire as t}from"module";var e={659:((t,e,r)=>{r.d(e,{a:()=>1})}),8204:(function(t){t.exports=2})};' +
        'const o={a:()=>3};function n(t){return e[t]}'
    )
  })

  it('does the same in a lazy chunk', () => {
    const code = 'export const id=448;export const ids=[448];export const modules={448:(t,e,s)=>{s.r(e)},12:t=>{}};'
    expect(eagerFactories(code)).toBe(
      'export const id=448;export const ids=[448];export const modules={448:((t,e,s)=>{s.r(e)}),12:(t=>{})};'
    )
  })

  it('leaves a table that is not of module factories alone, and throws when there is none', () => {
    const code = 'const a={1:()=>1,x:()=>2},b={2:3};export const c={}'
    expect(() => eagerFactories(code)).toThrow('no table of module factories found in the bundle')
  })
})
