"""A study's preregistration: the document frozen at launch, the services that write it, and the audit
trail of changes made after launch."""
