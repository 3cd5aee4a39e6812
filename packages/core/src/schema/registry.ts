import type { ResourceModel } from './model.js'
import { SchemaError, hint } from './schema-error.js'

/**
 * The normalized resource models, keyed by `<version>/<path>`. Built once at start-up and
 * read by every surface (REST now; Swagger, GraphQL, MCP, `_describe`, the client later).
 */
export class Registry {
  readonly #models = new Map<string, ResourceModel>()

  /** Adds a model; a `path` used twice in one version stops start-up naming both sources. */
  add (model: ResourceModel): void {
    const existing = this.#models.get(model.key)
    if (existing !== undefined) {
      throw new SchemaError(
        model.source,
        'path',
        `'${model.path}' is already used by ${existing.source} (version ${model.version})`
      )
    }
    this.#models.set(model.key, model)
  }

  get (version: string, path: string): ResourceModel | undefined {
    return this.#models.get(`${version}/${path}`)
  }

  all (): ResourceModel[] {
    return [...this.#models.values()]
  }

  versions (): string[] {
    return [...new Set(this.all().map((m) => m.version))].sort()
  }

  /** Cross-schema checks once everything is loaded: relation targets and their keys exist. */
  check (): void {
    for (const m of this.#models.values()) {
      const paths = this.all()
        .filter((o) => o.version === m.version)
        .map((o) => o.path)
      for (const r of Object.values(m.relations)) {
        const key = m.definition.relations?.[r.name] === undefined ? `fields.${r.fk}.reference` : `relations.${r.name}`
        const target = this.get(m.version, r.target)
        if (target === undefined) {
          throw new SchemaError(m.source, key, `unknown relation target '${r.target}'${hint(r.target, paths)}`)
        }
        const holder = r.kind === 'belongsTo' ? m : target
        const found = r.fkCandidates?.find((c) => holder.fieldsByPath.has(c))
        if (found !== undefined) r.fk = found
        if (!holder.fieldsByPath.has(r.fk)) {
          throw new SchemaError(
            m.source,
            `relations.${r.name}.fk`,
            `'${r.fk}' is not a field of ${holder.path}${hint(r.fk, holder.fieldsByPath.keys())}`
          )
        }
      }
    }
  }
}
