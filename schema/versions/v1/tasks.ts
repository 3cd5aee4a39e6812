// Follow-ups. `dealId` uses the legacy `reference` shorthand (a belongsTo relation named `deal`).
export default {
  path: 'tasks',
  collection: 'tasks',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'dueAt', type: Date },
    { name: 'done', type: Boolean, default: false },
    { name: 'priority', type: String, enum: ['low', 'normal', 'high'], default: 'normal' },
    { name: 'assigneeEmail', type: String, lowercase: true },
    { name: 'dealId', type: String, reference: 'deals' },
    { name: 'checklist', type: [{ text: { type: String, required: true }, done: { type: Boolean, default: false } }] },
    { name: 'estimateHours', type: Number, min: 0 }
  ]
}
