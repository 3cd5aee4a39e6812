// The learning layer's schemas (spec "Agent authentication", service mode rule 3). Field ACL is
// keyed to role `agent`: the agent (a user holding role `agent`) reads tenant data, writes memory
// and customer profiles, drafts skills and proposes persona patches; only people (`user`,
// `admin`) author the persona and promote skills. A write the roles do not allow is 403 FORBIDDEN.

const AGENT = ['agent']
const HUMANS = ['user', 'admin']
const EVERYONE = ['agent', 'user', 'admin']

/**
 * What the agent remembers about one chat user, keyed by (channel, channelUserId): in service
 * mode every chat user shares the agent's identity, so the key is what keeps them apart.
 */
export const agentMemorySchema = {
  path: 'agentMemory',
  collection: 'agent_memory',
  fields: [
    { name: 'content', type: String, required: true, searchable: true, acl: { create: AGENT, update: AGENT } },
    { name: 'channel', type: String, required: true, acl: { create: AGENT, update: AGENT } },
    { name: 'channelUserId', type: String, required: true, acl: { create: AGENT, update: AGENT } },
    { name: 'tags', type: [String], acl: { create: AGENT, update: AGENT } }
  ],
  compositeIndex: [{ userId: 1, channel: 1, channelUserId: 1 }]
}

/** How the agent speaks and behaves; the agent may only propose a patch. */
export const agentPersonaSchema = {
  path: 'agentPersona',
  collection: 'agent_persona',
  fields: [
    { name: 'name', type: String, acl: { create: HUMANS, update: HUMANS } },
    { name: 'instructions', type: String, acl: { create: HUMANS, update: HUMANS } },
    { name: 'proposedPatch', type: String, acl: { create: EVERYONE, update: EVERYONE } }
  ]
}

/** Reusable procedures: drafted by the agent, promoted by people. */
export const skillsSchema = {
  path: 'skills',
  collection: 'skills',
  fields: [
    { name: 'name', type: String, required: true, searchable: true },
    { name: 'description', type: String },
    { name: 'steps', type: String },
    { name: 'status', type: String, enum: ['draft', 'approved', 'retired'], acl: { create: HUMANS, update: HUMANS } }
  ],
  hooks: {
    // Not a field default: request validation fills defaults in before the ACL screen, which
    // would make the agent "set" a status it may not set. A skill nobody approved is a draft.
    beforeCreate: ({ input }: { input: Record<string, unknown> }) => ({ ...input, status: input.status ?? 'draft' })
  }
}

/** What the agent learned about a customer it talks to, one per (channel, channelUserId). */
export const customerProfilesSchema = {
  path: 'customerProfiles',
  collection: 'customer_profiles',
  compositeIndex: [{ userId: 1, channel: 1, channelUserId: 1 }],
  fields: [
    { name: 'channel', type: String, required: true, acl: { create: AGENT, update: AGENT } },
    { name: 'channelUserId', type: String, required: true, acl: { create: AGENT, update: AGENT } },
    { name: 'displayName', type: String, acl: { create: AGENT, update: AGENT } },
    { name: 'summary', type: String, acl: { create: AGENT, update: AGENT } },
    { name: 'preferences', type: 'Mixed', acl: { create: AGENT, update: AGENT } }
  ]
}

/** The four schemas, for a service started with the learning layer on. */
export const learningSchemas = [agentMemorySchema, agentPersonaSchema, skillsSchema, customerProfilesSchema]
