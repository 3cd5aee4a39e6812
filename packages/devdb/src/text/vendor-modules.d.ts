/** wink-porter2-stemmer ships no type declarations; it exports one function. */
declare module 'wink-porter2-stemmer' {
  /** English Snowball (Porter2) stemmer; lower-cases its input. */
  function stem (word: string): string
  export default stem
}
