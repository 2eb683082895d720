"""Creating and changing a study: its settings checked and stored, drafts edited and duplicated, units
planned from the imported items, training questions, published answers imported, checklist notes."""
