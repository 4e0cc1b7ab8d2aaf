/** A host user as `pw usershow -a` lists it (the fields the control plane uses). */
export interface HostUserInventory {
  name: string;
  uid: number;
  /** the user's primary group */
  gid: number;
}

/** A host group as `pw groupshow -a` lists it. */
export interface HostGroupInventory {
  name: string;
  gid: number;
  /** supplementary members, in the host's order (users whose primary group this is are not listed) */
  members: string[];
}

/** E1 and E2's record. */
export interface GroupView {
  id: number;
  name: string;
}
