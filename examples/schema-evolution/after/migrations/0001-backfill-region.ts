// Gives the deals stored before `region` existed one, from their country.
import { defineMigration } from '@svc/core'

const REGIONS: Record<string, string> = {
  DE: 'emea',
  FR: 'emea',
  GB: 'emea',
  US: 'americas',
  BR: 'americas',
  JP: 'apac'
}

export default defineMigration({
  description: 'deals get a region from their country',
  resources: {
    deals: {
      // Only the records that lack one; evaluated by the database on the stored records.
      filter: { region: { $exists: false } },
      up (deal) {
        deal.region = REGIONS[String(deal.country)] ?? 'emea'
      }
    }
  }
})
