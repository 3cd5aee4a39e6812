/**
 * Locales MongoDB 7.0 accepts for collation (its ICU locale IDs, underscore-separated), and the
 * ICU `@collation=` variant keywords with their BCP 47 (`-u-co-`) spellings for Intl.Collator.
 */
export const MONGO_LOCALES = new Set([
  'af',
  'am',
  'ar',
  'as',
  'az',
  'be',
  'bg',
  'bn',
  'bo',
  'bs',
  'bs_Cyrl',
  'ca',
  'chr',
  'cs',
  'cy',
  'da',
  'de',
  'de_AT',
  'dsb',
  'dz',
  'ee',
  'el',
  'en',
  'en_US',
  'en_US_POSIX',
  'eo',
  'es',
  'et',
  'fa',
  'fa_AF',
  'fi',
  'fil',
  'fo',
  'fr',
  'fr_CA',
  'ga',
  'gl',
  'gu',
  'ha',
  'haw',
  'he',
  'hi',
  'hr',
  'hsb',
  'hu',
  'hy',
  'id',
  'ig',
  'is',
  'it',
  'ja',
  'ka',
  'kk',
  'kl',
  'km',
  'kn',
  'ko',
  'kok',
  'ky',
  'lb',
  'lkt',
  'ln',
  'lo',
  'lt',
  'lv',
  'mk',
  'ml',
  'mn',
  'mr',
  'ms',
  'mt',
  'my',
  'nb',
  'ne',
  'nl',
  'nn',
  'om',
  'or',
  'pa',
  'pl',
  'ps',
  'pt',
  'ro',
  'ru',
  'se',
  'si',
  'sk',
  'sl',
  'smn',
  'sq',
  'sr',
  'sr_Latn',
  'sv',
  'sw',
  'ta',
  'te',
  'th',
  'to',
  'tr',
  'ug',
  'uk',
  'ur',
  'vi',
  'wae',
  'yi',
  'yo',
  'zh',
  'zh_Hant',
  'zu'
])

/** ICU collation keyword values → BCP 47 collation types where they differ. */
const VARIANT_TO_BCP47: Record<string, string> = {
  phonebook: 'phonebk',
  traditional: 'trad',
  dictionary: 'dict',
  gb2312han: 'gb2312',
  big5han: 'big5han'
}

export interface ParsedLocale {
  base: string
  variant?: string
  bcp47: string
}

/** Splits `de@collation=phonebook` and builds the BCP 47 tag Intl.Collator understands. */
export function parseLocaleId (id: string): ParsedLocale | undefined {
  const m = /^([A-Za-z0-9_]+)(?:@collation=([a-z0-9]+))?$/.exec(id)
  if (m === null) return undefined
  const base = m[1]
  const variant = m[2]
  let bcp47 = base.replace(/_/g, '-')
  if (base === 'en_US_POSIX') bcp47 = 'en-US-u-va-posix'
  if (variant !== undefined) bcp47 += `-u-co-${VARIANT_TO_BCP47[variant] ?? variant}`
  return { base, variant, bcp47 }
}

/** The nearest locale mongod would suggest ("Did you mean …?") for a mis-spelled one. */
export function suggestLocale (id: string): string | undefined {
  const canonical = id
    .replace(/-/g, '_')
    .replace(/^([a-z]+)(_|$)/i, (_m, l: string, sep: string) => l.toLowerCase() + sep)
  const withRegion = canonical.replace(/_([a-z]{2})$/i, (_m, r: string) => '_' + r.toUpperCase())
  if (withRegion !== id && MONGO_LOCALES.has(withRegion)) return withRegion
  const lang = canonical.split('_')[0]
  return lang !== id && MONGO_LOCALES.has(lang) ? lang : undefined
}
